"""Each fault mode of the reference makes the tests meant to catch it fail, in the right part.

This is the proof that the suite's checks can fail: the reference breaks one stated
behaviour and the tests its registration names (``reference/faults/``) must report it with
the clause.
"""

from __future__ import annotations

import ast
import functools
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
            "--webhook-timeout=3",
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
