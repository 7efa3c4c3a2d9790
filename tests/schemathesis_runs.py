"""Schemathesis, the peer tool, run against a reference sandbox with the OpenAPI document:
its settings, the seeds and share of the operations each run takes, and what a run found.

Every check and every phase, three seeds drawn at random each time (printed, so a failure
can be replayed with ``--seed``). A CI run takes 12 examples and gives each seed a third of
the operations for the examples, coverage and fuzzing phases (every operation is fuzzed once,
under one of the three seeds), with no walk; the thorough tier (``SELFTEST_THOROUGH=1``,
``tests/selftest_tier.py``) gives every seed every operation, 100 examples, and a walk
of the links long enough to move money and follow half of them (several minutes a seed).
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.contract.openapi import REFUSED_KEY, build_openapi, render
from tests.selftest_tier import thorough

EXAMPLES = 100  # per operation and phase, in the thorough tier
# CI's examples, for its minutes (every operation is still fuzzed under one of three random
# seeds each run); the thorough tier takes EXAMPLES under every seed
CI_EXAMPLES = 12
# the walk's scenarios: twice the examples, for at least half the links under any seed (of
# 84 links, 100 scenarios followed 40 to 48, 200 followed 47 to 56 over eight seeds)
WALK_SCENARIOS = 2 * EXAMPLES
SEEDS = 3
_STATED_400 = '["2xx", "3xx", "400", "401", "403", "404", "409", "429", "5xx"]'
# The fuzzer's settings: every check; the stateful phase walks the links (positive data:
# a link's body merged into a negative case makes it valid while still labelled negative;
# no inferred links: the declared ones cover the ids), long enough to move money. Where
# the interface states a 400 for a schema-valid request that another record's state or an
# unpublished value decides, the fuzzer expects it where real ids reach: §7 for
# POST /verifications on a decided customer (the ids it saw answered reach every phase),
# §7 and §8 for a quote over the size limit (only the walk gets a quote past its ids), §7
# QUOTE_EXPIRED for a quote the walk keeps past its minute (authorize, a sandbox payment;
# execute declares its 400 in the document). Schemathesis reads a
# POST /customers/external-accounts after a POST /customers as addressing the new customer
# by path; its customer travels in the body, which the walk sometimes fills at random on
# purpose, so a 404 there is no lost resource. The reference ignores a query parameter or a
# body member it does not know (SANDBOX.md, "Lists"), so an extra one makes no invalid case.
_SETTINGS = f"""
[checks]
enabled = true

[generation]
allow-extra-parameters = false

[phases.stateful]
max-steps = 50
inference.algorithms = []
generation.mode = "positive"
generation.max-examples = {WALK_SCENARIOS}

[[operations]]
include-name = "POST /verifications"
checks.positive_data_acceptance.expected-statuses = {_STATED_400}

[[operations]]
include-name = "POST /quotes/{{quoteId}}/authorize"
checks.positive_data_acceptance.expected-statuses = {_STATED_400}

[[operations]]
include-name = "POST /sandbox/send"
checks.positive_data_acceptance.expected-statuses = {_STATED_400}

[[operations]]
include-name = "POST /customers/external-accounts"
phases.stateful.checks.ensure_resource_availability.enabled = false
"""
# The document's file part is a PDF; a value the fuzzer makes of another type (a number, an
# object) still needs bytes to go out as that part.
_HOOKS = """
import json

import schemathesis


@schemathesis.serializer("application/pdf")
def pdf(ctx, value):
    return value if isinstance(value, bytes) else json.dumps(value).encode()
"""


def settings(document: dict[str, Any]) -> str:
    """The fuzzer's settings, with the 400s the document declares beyond its schemas
    (``x-refused-beyond-schema``: a point off the curve, a cursor the list never gave, a
    short balance) expected where it declares them, as a peer tool reading it would."""
    toml = _SETTINGS
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if REFUSED_KEY in operation["responses"].get("400", {}):
                toml += (
                    f'\n[[operations]]\ninclude-name = "{method.upper()} {path}"\n'
                    f"checks.positive_data_acceptance.expected-statuses = {_STATED_400}\n"
                )
    return toml


def draw_seed() -> int:
    """A seed drawn afresh for each run (never the pseudo-random state pytest may pin)."""
    return random.SystemRandom().randrange(1, 2**31)


def walks(slot: int) -> bool:
    """Whether seed ``slot`` runs the stateful phase: every seed in the thorough tier; none
    in CI, whose minutes it does not fit (``slot`` kept for the tier's choice)."""
    return thorough()


def share(document: dict[str, Any], slot: int) -> list[str]:
    """The operations (``"POST /quotes"``) seed ``slot`` fuzzes: every one when thorough,
    else every third of them in the document's order, so three slots cover all once."""
    labels = [f"{m.upper()} {p}" for p, ops in document["paths"].items() for m in ops]
    return labels if thorough() else labels[slot % SEEDS :: SEEDS]


@dataclass(frozen=True)
class Outcome:
    """What one seed's runs printed and recorded."""

    seed: int
    output: str
    failures: str  # the failed runs' reports
    returncode: int
    links: tuple[int, int]  # covered, selected
    linked_answers: frozenset[tuple[str, str, int]]
    seconds: float


def _command(spec: Path, config: Path, base_url: str, auth: str, report: Path) -> list[str]:
    return [
        sys.executable,
        "-c",
        "import sys; from schemathesis.cli import schemathesis; sys.exit(schemathesis())",
        "--config-file",
        str(config),
        "run",
        str(spec),
        "--url",
        base_url,
        "--auth",
        auth,
        "--max-examples",
        str(EXAMPLES if thorough() else CI_EXAMPLES),
        "--report",
        "ndjson",
        "--report-dir",
        str(report),
        "--no-color",
    ]


def fuzz(sandbox: Any, folder: Path, seed: int, slot: int) -> Outcome:
    """Run the fuzzer with ``seed``: the examples, coverage and fuzzing phases on this
    slot's share of the operations, then, where this slot walks, the stateful phase on all
    of them."""
    document = build_openapi(sandbox.base_url.rsplit("/", 1)[0])
    spec, config, hooks = folder / "openapi.json", folder / "schemathesis.toml", folder / "hooks.py"
    spec.write_text(render(document), encoding="utf-8")
    config.write_text(settings(document), encoding="utf-8")
    hooks.write_text(_HOOKS, encoding="utf-8")
    user, secret = sandbox.credentials()
    base = _command(spec, config, sandbox.base_url, f"{user}:{secret}", folder / "report")
    base += ["--seed", str(seed)]
    chosen = [f"--include-name={label}" for label in share(document, slot)]
    runs = [[*base, "--phases", "examples,coverage,fuzzing", *chosen]]
    if walks(slot):
        runs.append([*base, "--phases", "stateful"])
    environment = {**os.environ, "SCHEMATHESIS_HOOKS": str(hooks)}
    output, failed, worst, started = "", "", 0, time.monotonic()
    for command in runs:
        done = subprocess.run(  # in the folder: the fuzzer keeps its own cache there
            command, capture_output=True, text=True, timeout=900, check=False, cwd=folder,
            env=environment,
        )  # fmt: skip
        output += done.stdout + done.stderr
        worst = max(worst, done.returncode)
        if done.returncode:
            failed += _failures(done.stdout) + done.stderr[-2000:]
    covered = re.search(r"API Links:\s+(\d+) covered / (\d+) selected", output)
    links = (int(covered[1]), int(covered[2])) if covered else (0, 0)
    answers = frozenset(_linked_answers(folder / "report"))
    elapsed = time.monotonic() - started
    return Outcome(seed, output, failed, worst, links, answers, elapsed)


def _failures(stdout: str) -> str:
    """A failed run's FAILURES section and summary (the rest is progress)."""
    start = stdout.find("= FAILURES =")
    return stdout[start if start >= 0 else 0 :][-12000:]


def _linked_answers(report: Path) -> set[tuple[str, str, int]]:
    """(method, path, status) of the stateful steps a followed link made, from the runs'
    NDJSON reports."""
    found = set()
    for file in report.iterdir():
        for line in file.read_text(encoding="utf-8").splitlines():
            event = json.loads(line)
            recorder = event.get("ScenarioFinished", {}).get("recorder") or {}
            for case_id, case in (recorder.get("cases") or {}).items():
                answer = (recorder.get("interactions") or {}).get(case_id, {}).get("response")
                if case.get("is_transition_applied") and answer:
                    value = case["value"]
                    found.add((value["method"], value["path"], answer["status_code"]))
    return found
