"""Summaries tell the whole truth: skips by cause, untested requirements, waivers, baseline,
unknown features, runs with no test."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from types import SimpleNamespace

import pytest

from conformance.contract.markers import SANDBOX_ONLY, skip_unless_sandbox
from conformance.ground.exit_codes import EXIT_CODES, EXIT_USAGE
from conformance.ground.profile import FIELD_NAME_DEFAULTS
from conformance.ground.profile_loading import validate_profile
from conformance.reporting.baseline import compare, console_lines, markdown_section
from conformance.reporting.report_paths import render_locations
from conformance.reporting.skip_reasons import (
    classify_skip,
    group_skips,
    markdown_sections,
    untested,
)
from conformance.reporting.summary_markdown import render_markdown
from conformance.reporting.waivers import Waiver, WaiverPlugin, load_waivers


def test_an_unknown_feature_is_a_usage_error_naming_the_known_ones() -> None:
    with pytest.raises(pytest.UsageError, match=r"unknown feature.*cardz.*Known features: cards"):
        validate_profile({"features": ("cardz",)}, dict(FIELD_NAME_DEFAULTS))
    assert validate_profile({"features": ("cards",)}, dict(FIELD_NAME_DEFAULTS)).features


@pytest.mark.parametrize(
    ("reason", "cause", "supply"),
    [
        (
            "feature 'cards' is not enabled for the target (add it to --features)",
            "feature",
            "--features cards",
        ),
        (
            "needs adapter hook 'pytest_conformance_issue_card', which the interface does not",
            "adapter_hook",
            "pytest_conformance_issue_card",
        ),
        (
            "needs a second platform's credentials (--second-client-id/--second-client-secret "
            "or CONFORMANCE_SECOND_CLIENT_ID/_SECRET)",
            "missing_setting",
            "--second-client-id and --second-client-secret",
        ),
        ("moves money, which is off in production (opt in)", "production_writes", "--allow"),
        ("the platform supports no currency but USD", "target", ""),
        (f"POST /sandbox/webhooks/test: {SANDBOX_ONLY}", "environment", "--target-environment"),
    ],
)
def test_each_skip_reason_has_a_cause_and_a_remedy(reason: str, cause: str, supply: str) -> None:
    found = classify_skip(reason)
    assert found.cause == cause
    assert supply in found.supply


def test_skips_group_by_remedy_and_show_in_markdown() -> None:
    groups = group_skips(
        [
            ("a::t1", "needs production credentials (--production-client-id/--x)"),
            ("a::t2", "needs production credentials (--production-client-id/--x)"),
            ("b::t3", "the platform supports no currency but USD"),
        ]
    )
    assert [(g["cause"], g["count"]) for g in groups] == [("missing_setting", 2), ("target", 1)]
    text = "\n".join(markdown_sections({"skips": groups, "untested": []}))
    assert "a::t1" in text and "b::t3" in text and "--production-client-id" in text


def test_sandbox_behaviour_skips_in_production_for_the_environment() -> None:
    production = validate_profile(
        {"base_url": "https://t.example", "client_id": "c", "client_secret": "s",
         "environment": "production"},
        dict(FIELD_NAME_DEFAULTS),
    )  # fmt: skip
    with pytest.raises(pytest.skip.Exception) as skipped:
        skip_unless_sandbox(production, "POST /sandbox/webhooks/test")
    assert classify_skip(str(skipped.value)).cause == "environment"
    sandbox = validate_profile({}, dict(FIELD_NAME_DEFAULTS))
    assert skip_unless_sandbox(sandbox, "POST /sandbox/webhooks/test") is None


def test_untested_requirements_say_why() -> None:
    catalogue = [
        SimpleNamespace(id="A", testability="not-testable", reason="the field is not shown"),
        SimpleNamespace(id="B", testability="testable", reason=None),
        SimpleNamespace(id="C", testability="testable", reason=None),
        SimpleNamespace(id="D", testability="needs-adapter", reason="the trigger is not shown"),
    ]
    statuses = [
        {"id": "A", "part": "auth", "status": "untested"},
        {"id": "B", "part": "limits", "status": "untested"},
        {"id": "C", "part": "auth", "status": "untested"},
        {"id": "D", "part": "limits", "status": "untested"},
    ]
    rows = {r["id"]: r["why"] for r in untested(statuses, catalogue, ["auth"])}
    assert rows["A"] == "not-testable: the field is not shown"
    assert "part 'limits' was not selected" in rows["B"]
    assert "no test checking it was selected" in rows["C"]
    # a needs-adapter requirement has tests: untested, it was not selected (its tests skip
    # when the hook is missing)
    assert "part 'limits' was not selected" in rows["D"]


def _summary(**extra: object) -> dict[str, object]:
    summary: dict[str, object] = {
        "verdict": "no_tests",
        "incomplete_reason": "no test ran",
        "interface_version": "x",
        "suite_version": "y",
        "target": {"base_url": "u", "environment": "sandbox"},
        "started_at": "t",
        "duration_s": 0.0,
        "totals": {"passed": 0, "failed": 0, "skipped": 0, "errors": 0, "waived": 0},
        "parts": {},
        "requirements": [],
        "failures": [],
        "advisories": [],
    }
    summary.update(extra)
    return summary


def test_a_run_with_no_test_is_not_passed() -> None:
    text = render_markdown(_summary())
    assert "PASSED" not in text and "NO TEST RAN" in text
    assert EXIT_CODES["no_tests"] == EXIT_USAGE


def _waiver_file(tmp_path: Path, body: str) -> str:
    path = tmp_path / "waivers.toml"
    path.write_text(body, encoding="utf-8")
    return str(path)


def test_waivers_need_a_reason_and_an_expiry(tmp_path: Path) -> None:
    with pytest.raises(pytest.UsageError, match="no reason"):
        load_waivers(_waiver_file(tmp_path, '[[waiver]]\ntest = "a.py::t"\nexpires = 2030-01-01\n'))
    with pytest.raises(pytest.UsageError, match="no `expires`"):
        load_waivers(_waiver_file(tmp_path, '[[waiver]]\ntest = "a.py::t"\nreason = "r"\n'))
    with pytest.raises(pytest.UsageError, match="exactly one"):
        load_waivers(_waiver_file(tmp_path, '[[waiver]]\nreason = "r"\nexpires = 2030-01-01\n'))


def test_an_expired_waiver_covers_nothing_and_is_listed(tmp_path: Path) -> None:
    path = _waiver_file(
        tmp_path,
        '[[waiver]]\ntest = "suites/a.py::t"\nreason = "PAY-1"\nexpires = 2026-01-31\n'
        '[[waiver]]\nrequirement = "AUTH-X"\nreason = "PAY-2"\nexpires = "2026-03-01"\n',
    )
    plugin = WaiverPlugin(path, load_waivers(path), today=date(2026, 2, 1))
    assert plugin.find("x/suites/a.py::t[1]", ()) is None  # expired
    assert plugin.find("b.py::u", ("AUTH-X",)) == 1
    view = plugin.view([])
    assert [w["test"] for w in view["expired"]] == ["suites/a.py::t"]
    assert [w["requirement"] for w in view["unused"]] == ["AUTH-X"]
    text = render_markdown(_summary(verdict="failed", waivers=view))
    assert "Expired waivers" in text and "PAY-1" in text
    assert Waiver("r", date(2026, 2, 1), test="t").expired(date(2026, 2, 1)) is False


def test_the_baseline_shows_new_and_fixed_failures() -> None:
    baseline = {"failures": [{"nodeid": "a::old"}, {"nodeid": "a::still"}], "started_at": "t0"}
    view = compare(
        "b.json",
        baseline,
        [{"nodeid": "a::new", "message": "boom"}, {"nodeid": "a::still", "message": "x"}],
        [{"nodeid": "a::old", "outcome": "passed", "message": ""}],
    )
    assert [f["nodeid"] for f in view["new_failures"]] == ["a::new"]
    assert view["fixed"] == [{"nodeid": "a::old"}]
    assert view["still_failing"] == 1
    assert "NEW `a::new`: boom" in "\n".join(markdown_section({"baseline": view}))
    assert view["tests_compared"] is False  # an older baseline lists no test outcomes
    assert "cannot be told" in "\n".join(markdown_section({"baseline": view}))


def test_a_test_that_passed_in_the_baseline_and_no_longer_does_is_a_regression() -> None:
    baseline = {
        "failures": [],
        "tests": [
            {"nodeid": n, "outcome": "passed"}
            for n in ("a::fails", "a::skips", "a::gone", "a::waived", "a::still_passes")
        ] + [{"nodeid": "a::was_skipped", "outcome": "skipped"}],
    }  # fmt: skip
    now = [
        {"nodeid": "a::fails", "outcome": "failed", "message": "§5 Authentication: boom"},
        {"nodeid": "a::skips", "outcome": "skipped", "message": "needs adapter hook 'x'"},
        {"nodeid": "a::waived", "outcome": "waived", "message": "PAY-1 (expires 2030-01-01)"},
        {"nodeid": "a::still_passes", "outcome": "passed", "message": ""},
    ]
    view = compare("b.json", baseline, [now[0]], now)
    assert [(r["nodeid"], r["now"]) for r in view["regressions"]] == [
        ("a::fails", "failed"), ("a::skips", "skipped"), ("a::gone", "untested"),
        ("a::waived", "waived"),
    ]  # fmt: skip
    assert view["regressions"][1]["message"] == "needs adapter hook 'x'"
    assert "not run by this run" in view["regressions"][2]["message"]
    text = "\n".join(markdown_section({"baseline": view}))
    assert "regressions (passed in the baseline, not now): 4" in text
    assert "REGRESSED `a::skips`: now skipped: needs adapter hook 'x'" in text
    assert "REGRESSED `a::fails`" not in text  # listed once, as a new failure
    console = "\n".join(console_lines(view))
    assert "4 regression(s), 1 new failure(s), 0 fixed, 0 still failing" in console
    assert "REGRESSED a::gone: now untested" in console


def test_the_console_says_where_every_report_is(tmp_path: Path) -> None:
    for name in ("summary.md", "summary.json", "junit.xml"):
        (tmp_path / name).write_text("x", encoding="utf-8")
    (tmp_path / "allure-results").mkdir()
    text = render_locations(tmp_path)
    for name in ("summary.md", "summary.json", "junit.xml", "allure-results", "--open"):
        assert name in text


def test_every_feature_a_suite_test_is_gated_on_is_known() -> None:
    import re

    from conformance.ground.features import KNOWN_FEATURES

    suites = Path(__file__).resolve().parents[1] / "conformance" / "suites"
    used = {
        name
        for path in suites.rglob("*.py")
        for name in re.findall(r"feature\(\"([^\"]+)\"\)", path.read_text(encoding="utf-8"))
    }
    assert used and used <= set(KNOWN_FEATURES)


def test_a_misspelt_conformance_variable_is_named_with_the_likely_fix() -> None:
    from conformance.ground.env_names import known_names, unknown_names

    assert unknown_names({"CONFORMANCE_FEATURE": "cards", "HOME": "/"}) == [
        ("CONFORMANCE_FEATURE", "CONFORMANCE_FEATURES")
    ]
    assert unknown_names(dict.fromkeys(known_names(), "x")) == []


def test_the_summary_says_how_many_tests_were_skipped() -> None:
    text = render_markdown(
        _summary(
            verdict="passed",
            totals={"passed": 1, "failed": 0, "skipped": 68, "errors": 0, "waived": 0},
        )
    )
    assert "68 tests were skipped" in text


def test_a_waiver_of_an_unknown_requirement_is_a_usage_error(tmp_path: Path) -> None:
    from unittest.mock import MagicMock

    from conformance.reporting.waivers import install

    path = _waiver_file(
        tmp_path, '[[waiver]]\nrequirement = "NO-SUCH-ID"\nreason = "r"\nexpires = 2030-01-01\n'
    )
    config = MagicMock(spec=["pluginmanager"])  # the controller: no workerinput
    config.pluginmanager.get_plugin.return_value = None
    with pytest.raises(pytest.UsageError, match="NO-SUCH-ID"):
        install(config, path)
