"""Markers, skips with reasons, parts and report files, driven from outside with pytester."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

SUITE_TEST = """
import pytest

from conformance.ground import hookspecs
from conformance.contract.markers import needs_adapter_hook

@pytest.mark.requirement("AUTH-BASIC-REQUIRED")
def test_reaches_the_target(client):
    assert client.get("/config").status == 200

@pytest.mark.feature("no-sandbox-declares-this")
@pytest.mark.requirement("AUTH-BASIC-REQUIRED")
def test_needs_a_feature(client):
    pass

@needs_adapter_hook(hookspecs.pytest_conformance_wallet_format)
@pytest.mark.requirement("AUTH-BASIC-REQUIRED")
def test_needs_an_adapter(client):
    pass

@pytest.mark.requirement("AUTH-401-REASON", "AUTH-BASIC-REQUIRED")
def test_records_an_advisory(advisory):
    advisory("the server answered slowly")
"""


def make_suite(pytester):
    suite = pytester.mkdir("suites") / "auth"
    suite.mkdir()
    (suite / "test_sample.py").write_text(SUITE_TEST)


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_skips_name_the_missing_setting_and_reports_are_written(pytester, workers):
    make_suite(pytester)
    report_dir = pytester.path / "out"
    result = pytester.runpytest_subprocess(
        *workers,
        "--conformance-parts=auth",
        f"--report-dir={report_dir}",
        f"--junitxml={report_dir / 'junit.xml'}",
        f"--alluredir={report_dir / 'allure-results'}",
        "-rs",
        "-p",
        "no:cacheprovider",
    )
    result.assert_outcomes(passed=2, skipped=2)
    result.stdout.fnmatch_lines(
        ["*feature 'no-sandbox-declares-this' is not enabled for the target*--features*"]
    )
    result.stdout.fnmatch_lines(
        ["*needs adapter hook 'pytest_conformance_wallet_format'*--adapter*"]
    )
    summary = json.loads((report_dir / "summary.json").read_text())
    assert summary["parts"]["auth"] == {"passed": 2, "failed": 0, "skipped": 2, "errors": 0}
    assert summary["target"]["environment"] == "sandbox"
    assert summary["advisories"][0]["message"] == "the server answered slowly"
    statuses = {r["id"]: r["status"] for r in summary["requirements"]}
    assert statuses["AUTH-BASIC-REQUIRED"] == "passed"
    assert statuses["CONFIG-GET-RESOURCE"] == "untested"
    assert (report_dir / "summary.md").read_text().startswith("# Conformance run: PASSED")
    labels = {}
    for path in (report_dir / "allure-results").glob("*-result.json"):
        result = json.loads(path.read_text())
        labels[result["name"]] = [(lbl["name"], lbl["value"]) for lbl in result["labels"]]
    # Allure's tree shows (and counts) a test once per value of each grouping label: one
    # epic (the part, named so that sorting keeps the interface's order), one feature, one
    # story (the first requirement); every requirement is a tag
    advisory = labels["test_records_an_advisory"]
    assert sorted((k, v) for k, v in advisory if k in ("epic", "feature", "story")) == [
        ("epic", "§5 auth"), ("feature", "Authentication"), ("story", "AUTH-401-REASON")
    ]  # fmt: skip
    tags = sorted(v for k, v in advisory if k == "tag")
    assert tags == ["AUTH-401-REASON", "AUTH-BASIC-REQUIRED"]
    assert ("story", "AUTH-BASIC-REQUIRED") in labels["test_reaches_the_target"]
    overview = (report_dir / "allure-results" / "environment.properties").read_text()
    assert "verdict=PASSED\n" in overview and "kit=gpsi-conformance " in overview
    junit = ET.parse(report_dir / "junit.xml").getroot()
    props = [p.get("name") for p in junit.iter("property")]
    assert "conformance_part" in props


def test_parts_deselect_other_suites(pytester):
    make_suite(pytester)
    other = pytester.path / "suites" / "limits"
    other.mkdir()
    (other / "test_other.py").write_text(
        'import pytest\n\n@pytest.mark.requirement("CONFIG-FEES-USD-ONLY")\n'
        "def test_other():\n    pass\n"
    )
    result = pytester.runpytest_subprocess(
        "--conformance-parts=limits",
        "-p",
        "no:cacheprovider",
        f"--report-dir={pytester.path / 'out'}",
    )
    result.assert_outcomes(passed=1, deselected=4)


ADAPTER_MODULE = """
def pytest_conformance_issue_card(profile, internal_account_id):
    return {"id": "Card:" + internal_account_id, "base_url": profile.base_url}
"""

ADAPTER_TEST = """
import pytest

from conformance.ground import hookspecs
from conformance.contract.markers import needs_adapter_hook

@needs_adapter_hook(hookspecs.pytest_conformance_issue_card)
@pytest.mark.requirement("AUTH-BASIC-REQUIRED")
def test_uses_the_adapter(adapter, profile):
    card = adapter.call(hookspecs.pytest_conformance_issue_card, internal_account_id="x")
    assert card == {"id": "Card:x", "base_url": profile.base_url}

@needs_adapter_hook(hookspecs.pytest_conformance_agent_device_code)
@pytest.mark.requirement("AUTH-BASIC-REQUIRED")
def test_needs_another_hook(adapter):
    pass
"""


def test_an_adapter_module_implements_hooks_by_name(pytester):
    suite = pytester.mkdir("suites") / "auth"
    suite.mkdir()
    (suite / "test_adapter.py").write_text(ADAPTER_TEST)
    pytester.makepyfile(my_adapter=ADAPTER_MODULE)
    result = pytester.runpytest_subprocess(
        "--conformance-parts=auth", "--adapter=my_adapter", "-rs", "-p", "no:cacheprovider",
        f"--report-dir={pytester.path / 'out'}",
    )  # fmt: skip
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*needs adapter hook 'pytest_conformance_agent_device_code'*"])


def test_an_adapter_file_named_by_a_profile_is_found_from_the_profile_s_folder(pytester):
    """``adapter = "adapters/mine.py"`` in ``ci/profile.toml``: loaded from ``ci/adapters``,
    by the controller and by every xdist worker, whatever folder the run starts in."""
    suite = pytester.mkdir("suites") / "auth"
    suite.mkdir()
    (suite / "test_adapter.py").write_text(ADAPTER_TEST)
    folder = pytester.mkdir("ci")
    (folder / "adapters").mkdir()
    (folder / "adapters" / "mine.py").write_text(ADAPTER_MODULE)
    (folder / "profile.toml").write_text('adapter = "adapters/mine.py"\n')
    result = pytester.runpytest_subprocess(
        "--conformance-parts=auth", f"--conformance-profile={folder / 'profile.toml'}", "-rs",
        "-n", "2", "-p", "no:cacheprovider", f"--report-dir={pytester.path / 'out'}",
    )  # fmt: skip
    result.assert_outcomes(passed=1, skipped=1)


def test_an_adapter_without_hooks_is_a_usage_error(pytester):
    suite = pytester.mkdir("suites") / "auth"
    suite.mkdir()
    (suite / "test_adapter.py").write_text(ADAPTER_TEST)
    pytester.makepyfile(empty_adapter="VALUE = 1\n")
    result = pytester.runpytest_subprocess(
        "--conformance-parts=auth", "--adapter=empty_adapter", "-p", "no:cacheprovider",
        f"--report-dir={pytester.path / 'out'}",
    )  # fmt: skip
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*implements none of the adapter hooks*"])


@pytest.mark.parametrize("name", ["pytest_conformance_issue_crad", "pytest_conformance_issue_card"])
def test_an_adapter_hook_named_by_string_is_a_usage_error(pytester, name):
    """Misspelt or not: a string is not how a suite names a hook."""
    suite = pytester.mkdir("suites") / "auth"
    suite.mkdir()
    (suite / "test_by_string.py").write_text(
        "import pytest\n\n"
        f"@pytest.mark.adapter_hook({name!r})\n"
        '@pytest.mark.requirement("AUTH-BASIC-REQUIRED")\n'
        "def test_by_string(client):\n    pass\n"
    )
    result = pytester.runpytest_subprocess(
        "--conformance-parts=auth", "-p", "no:cacheprovider",
        f"--report-dir={pytester.path / 'out'}",
    )  # fmt: skip
    assert result.ret == 4
    result.stderr.fnmatch_lines([f"*@adapter_hook names '{name}'*by attribute*"])
