"""The composite GitHub Action: its inputs reach the run, its exit codes are the CLI's."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from conformance.reporting.summaries import EXIT_CODES, EXIT_FAILED, EXIT_OK, EXIT_USAGE
from conformance.run import options as opt

ACTION = Path(__file__).resolve().parents[1] / "action.yml"


def test_the_action_is_a_composite_whose_inputs_are_all_used() -> None:
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    text = ACTION.read_text(encoding="utf-8")
    for name in action["inputs"]:
        assert f"inputs.{name}" in text, name
    envs = set(re.findall(r"\b(CONFORMANCE_[A-Z_]+):", text))
    known = {s.env for s in opt.SETTINGS} | {opt.PROFILE_ENV, opt.WAIVERS_ENV, opt.BASELINE_ENV}
    assert envs <= known, envs - known


def test_the_documented_exit_codes_are_the_cli_s() -> None:
    description = yaml.safe_load(ACTION.read_text(encoding="utf-8"))["description"]
    for code, words in (
        (EXIT_OK, "no test failed"),
        (EXIT_FAILED, "a waiver expired"),
        (EXIT_USAGE, "no test ran"),
        (EXIT_CODES["not_run"], "could not be tested"),
        (EXIT_CODES["incomplete"], "did not finish"),
    ):
        assert re.search(rf"{code} [^;.]*{words}", description), (code, words)
