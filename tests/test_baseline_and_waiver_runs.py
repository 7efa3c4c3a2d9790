"""CI comparisons end to end on the embedded sandbox (one part, seconds): a test that passed
in the baseline and did not run now is a regression, on the console and in the summaries;
a waiver naming no test or requirement of the suite stops the run before it starts."""

from __future__ import annotations

from pathlib import Path

from .conformance_runs.runner import conformance_run

VERSION_TEST = (
    "versioning/test_version_segment.py::test_the_current_version_is_served_under_its_date_segment"
)


def test_a_passed_test_that_did_not_run_now_is_a_regression(tmp_path: Path) -> None:
    before = conformance_run(tmp_path / "before", "--parts=versioning")
    assert before.code == 0, before.output[-3000:]
    baseline = before.report_dir / "summary.json"
    now = conformance_run(
        tmp_path / "now", "--parts=versioning", f"--baseline={baseline}",
        "--", "-k", "not test_the_current_version_is_served_under_its_date_segment",
    )  # fmt: skip
    assert now.code == 0, now.output[-3000:]  # a comparison informs; it does not fail a run
    (regression,) = now.summary["baseline"]["regressions"]
    assert regression["nodeid"].endswith(VERSION_TEST)
    assert (regression["before"], regression["now"]) == ("passed", "untested")
    assert "1 regression(s), 0 new failure(s), 0 fixed, 0 still failing" in now.output
    assert f"REGRESSED {regression['nodeid']}: now untested" in now.output
    markdown = (now.report_dir / "summary.md").read_text(encoding="utf-8")
    assert f"REGRESSED `{regression['nodeid']}`: now untested" in markdown


def _waiver(tmp_path: Path, key: str, value: str) -> str:
    path = tmp_path / f"waivers-{value[-12:].replace('/', '_')}.toml"
    path.write_text(
        f'[[waiver]]\n{key} = "{value}"\nreason = "PAY-9"\nexpires = 2999-12-31\n',
        encoding="utf-8",
    )
    return f"--waivers={path}"


def test_a_waiver_naming_no_test_of_the_suite_is_a_usage_error(tmp_path: Path) -> None:
    typo = VERSION_TEST.replace("segment", "segmnet")
    bad = conformance_run(tmp_path / "bad", "--parts=auth", _waiver(tmp_path, "test", typo))
    assert bad.code == 2, bad.output[-3000:]
    assert f"test '{typo}' is not a test of the suite" in bad.output
    assert "test_the_current_version_is_served_under_its_date_segment" in bad.output  # the fix
    unknown = conformance_run(
        tmp_path / "unknown", "--parts=auth", _waiver(tmp_path, "requirement", "AUTH-NO-SUCH")
    )
    assert unknown.code == 2, unknown.output[-3000:]
    assert "requirement 'AUTH-NO-SUCH' is not in the catalogue" in unknown.output
    # a test of a part this run does not collect is still a test of the suite
    fine = conformance_run(
        tmp_path / "fine", "--parts=auth", _waiver(tmp_path, "test", VERSION_TEST),
        "--", "-k", "test_valid_credentials_are_accepted",
    )  # fmt: skip
    assert fine.code == 0, fine.output[-3000:]
