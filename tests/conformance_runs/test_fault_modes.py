"""Each fault mode of the reference makes the tests meant to catch it fail, in the right part.

This is the proof that the suite's checks can fail: the reference breaks one stated
behaviour and the tests its registration names (``reference/faults/``) must report it with
the clause.
"""

from __future__ import annotations

import ast
import functools
import json
import os
from pathlib import Path

import pytest

from conformance.run.embedded import EMBEDDED_QUOTE_LIFETIME_S, QUOTE_LIFETIME_FLAG
from reference.faults import FAULTS
from tests.reference.reference_helpers import start_sandbox

from .runner import aimed_at, conformance_run

# run flags of a fault's registration -> the sandbox flag the embedded default would add
SANDBOX_FLAGS = {
    "--regulated=true": "--regulated",
    "--skip-verification-paperwork=true": "--skip-verification-paperwork",
}


@pytest.mark.slow
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_fault_mode_is_caught(tmp_path, fault):
    registered = FAULTS[fault]
    part, must_fail, extra = registered.part, registered.caught_by, registered.run_args
    # the sandbox the embedded default would start (--embedded-args=--fault NAME), forked
    # warm, with the run aimed at it: a new Python's start-up was half of a fault run
    modes = [SANDBOX_FLAGS[arg] for arg in extra if arg in SANDBOX_FLAGS]
    sandbox = start_sandbox(
        "--fault", fault, QUOTE_LIFETIME_FLAG, str(EMBEDDED_QUOTE_LIFETIME_S), *modes, warm=True
    )
    flags, env = aimed_at(sandbox.banner)
    try:
        result = conformance_run(
            tmp_path,
            f"--parts={part}",
            *flags,
            # the reference delivers within milliseconds; a fault's missing event is waited
            # for once (later waits for it end at once): 16 faults wait, 2 s each
            "--webhook-timeout=2",
            *extra,
            # only the tests meant to catch it: the mode runs prove the rest pass a good server
            "--",
            "-p",
            "tests.conformance_runs.quick_failures",
            "-k",
            " or ".join(must_fail),
            # and only the files that define them are collected (a tenth of a fault run
            # was importing and collecting the rest of its part)
            *(f"--ignore={path}" for path in _files_without(part, must_fail)),
            env=env,
        )
    finally:
        sandbox.stop()
    if registered.stops_at_preflight:
        # the run could not run: the preflight says what it waited for and what to check
        assert result.code == 3, f"exit {result.code}; expected 3\n{result.output[-3000:]}"
        assert result.summary["verdict"] == "not_run"
        assert "preflight" in result.summary["incomplete_reason"], result.summary
        assert "TEST" in result.summary["incomplete_reason"], result.summary
        return
    assert result.code == 1, f"exit {result.code}; expected 1\n{result.output[-3000:]}"
    failures = result.summary["failures"]
    failed_names = {f["nodeid"].split("::")[-1].split("[")[0] for f in failures}
    missed = [name for name in must_fail if name not in failed_names]
    assert not missed, f"{fault} was not caught by {missed}; failed: {sorted(failed_names)}"
    for failure in failures:
        assert failure["part"] == part
        assert failure["requirements"], failure
        assert "§" in failure["message"] or "Conventions" in failure["message"], failure["message"]
    _check_blast_radius(fault, must_fail, result.summary)


# fault -> the requirements its run fails and how many causes it names (issue "failures that
# point at their cause": one cause, only the caught_by tests' requirements, or a `why`)
BLAST_RADIUS = Path(__file__).with_name("fault_blast_radius.json")
# set to a folder, the fault runs write what they observed there instead of comparing
# (tests/conformance_runs/fault_blast_radius.py merges them into the table)
RECORD_BLAST_RADIUS = (
    "SELFTEST_RECORD_BLAST_RADIUS"  # not CONFORMANCE_*: the kit refuses unknown ones
)


def _check_blast_radius(fault: str, must_fail: tuple[str, ...], summary: dict) -> None:
    caught_by = [
        t for t in summary["tests"] if t["nodeid"].split("::")[-1].split("[")[0] in must_fail
    ]
    observed = {
        "failed_requirements": sorted(
            r["id"] for r in summary["requirements"] if r["status"] == "failed"
        ),
        "causes": len(summary["causes"]),
        # what the caught_by tests declare (a parametrized test's cases may each name one)
        "caught_by_requirements": sorted({r for t in caught_by for r in t["requirements"]}),
    }
    folder = os.environ.get(RECORD_BLAST_RADIUS)
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        Path(folder, f"{fault}.json").write_text(json.dumps(observed))
        return
    kept = _blast_table().get(fault, {})
    assert {key: kept.get(key) for key in observed} == observed, (
        f"{fault}: the blast radius changed; the table ({BLAST_RADIUS.name}) keeps "
        f"{kept}, the run observed {observed}; causes: {summary['causes']}"
    )


@functools.cache
def _blast_table() -> dict[str, dict]:
    return json.loads(BLAST_RADIUS.read_text())


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_the_blast_radius_table_is_honest(fault):
    """Each fault's run fails only its caught_by tests' requirements and names one cause; an
    entry that does not says why (the fault breaks two rules at once, say)."""
    registered = FAULTS[fault]
    if registered.stops_at_preflight:
        assert fault not in _blast_table()
        return
    kept = _blast_table()[fault]
    beyond = set(kept["failed_requirements"]) - set(kept["caught_by_requirements"])
    assert kept["failed_requirements"], f"{fault}: its run fails no requirement"
    if beyond or kept["causes"] != 1:
        assert kept.get("why"), (
            f"{fault}: {kept['causes']} causes, requirements beyond its caught_by tests' "
            f"{sorted(beyond)}; fix the charging or say why in {BLAST_RADIUS.name}"
        )


SUITES = Path(__file__).resolve().parents[2] / "conformance" / "suites"


@functools.cache
def _defined_tests(part: str) -> dict[Path, frozenset[str]]:
    """Each test module of a part and the names of the tests it defines."""
    found = {}
    for path in sorted((SUITES / part).glob("test_*.py")):
        tree = ast.parse(path.read_text())
        found[path] = frozenset(
            node.name
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.name.startswith("test_")
        )
    return found


def _test_names(part: str) -> set[str]:
    return set().union(*_defined_tests(part).values())


def _files_without(part: str, names: tuple[str, ...]) -> list[Path]:
    """The part's test modules that define none of ``names``."""
    return [path for path, defined in _defined_tests(part).items() if not defined & set(names)]


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_every_fault_names_tests_that_exist_in_its_part(fault):
    registered = FAULTS[fault]
    missing = set(registered.caught_by) - _test_names(registered.part)
    assert not missing, f"{fault}: no test {sorted(missing)} in suites/{registered.part}"
