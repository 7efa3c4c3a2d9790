"""The HTML report: pinned generator, nothing loaded from the internet, served on loopback."""

from __future__ import annotations

import json
import re
import shutil
import urllib.request
from pathlib import Path

import pytest

from conformance.reporting import allure_report
from conformance.reporting.allure_overview import overview, read_overview, write_overview
from conformance.reporting.allure_report import (
    ALLURE_VERSION,
    PIN_DIR,
    make_offline,
    remote_loads,
    serve_report,
)

ANALYTICS = """<script async src="https://www.googletagmanager.com/gtag/js?id=G-X"></script>
    <script>
        window.dataLayer = window.dataLayer || [];
        gtag('config', 'G-X', {});
    </script>"""


def test_the_generator_is_pinned_exactly_by_a_lockfile() -> None:
    package = json.loads((PIN_DIR / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((PIN_DIR / "package-lock.json").read_text(encoding="utf-8"))
    assert package["dependencies"] == {"allure": ALLURE_VERSION}
    assert lock["packages"]["node_modules/allure"]["version"] == ALLURE_VERSION
    assert all(
        entry.get("integrity", "").startswith("sha512-")
        for name, entry in lock["packages"].items()
        if name and not entry.get("link")
    )


def test_analytics_are_removed_and_remote_loads_refused(tmp_path: Path) -> None:
    page = tmp_path / "index.html"
    page.write_text(
        f"<html><head><title>x</title></head><body>{ANALYTICS}"
        "<svg xmlns='http://www.w3.org/2000/svg'></svg></body></html>",
        encoding="utf-8",
    )
    assert make_offline(tmp_path) == []
    text = page.read_text(encoding="utf-8")
    assert "googletagmanager" not in text and "Content-Security-Policy" in text
    assert remote_loads('<link href="https://cdn.example/x.css">')
    assert remote_loads("<style>@import 'http://fonts.example/a.css'</style>")
    assert remote_loads('<img src="//cdn.example/x.png">')
    assert not remote_loads('<a>see https://allurereport.org</a><img src="data/x.png">')
    (tmp_path / "other.html").write_text(
        '<html><head></head><script src="https://cdn.example/x.js"></script></html>',
        encoding="utf-8",
    )
    assert make_offline(tmp_path) == ['other.html: src="https://cdn.example/x.js']


def test_the_report_is_served_on_loopback(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<html>report</html>", encoding="utf-8")
    urls: list[str] = []
    server = serve_report(tmp_path, ready=urls.append)
    try:
        assert urls[0].startswith("http://127.0.0.1:")
        with urllib.request.urlopen(urls[0], timeout=5) as answer:
            assert answer.read() == b"<html>report</html>"
    finally:
        server.shutdown()
        server.server_close()


SUMMARY = {
    "verdict": "incomplete",
    "incomplete_reason": "stopped by SIGINT\nbefore the end",
    "suite_version": "9.9.9",
    "interface_version": "2025-10-13",
    "target": {"base_url": "https://api.example.com/2025-10-13", "environment": "sandbox"},
    "started_at": "2026-01-01T00:00:00Z",
    "totals": {"passed": 3, "failed": 1, "skipped": 0, "errors": 0, "waived": 0},
}


def test_the_overview_says_the_verdict_target_and_kit(tmp_path: Path) -> None:
    write_overview(tmp_path, SUMMARY)
    entries = read_overview(tmp_path)
    assert entries == overview(SUMMARY)
    assert entries["verdict"] == "INCOMPLETE: the run did not finish"
    assert entries["reason"] == "stopped by SIGINT\nbefore the end"  # escaped, read back
    assert entries["target"] == "https://api.example.com/2025-10-13"
    assert entries["kit"] == "gpsi-conformance 9.9.9"
    assert entries["tests"] == "3 passed, 1 failed, 0 skipped, 0 errors"
    text = (tmp_path / "environment.properties").read_text(encoding="utf-8")
    assert text.splitlines()[0] == "verdict=INCOMPLETE: the run did not finish"
    assert len(text.splitlines()) == len(entries)  # one line each, newlines escaped
    assert allure_report.report_name(tmp_path) == (
        "GPSI conformance: INCOMPLETE: the run did not finish (https://api.example.com/2025-10-13)"
    )
    assert allure_report.report_name(tmp_path / "none") == "GPSI conformance"


def test_the_tree_sorts_by_name_so_the_parts_keep_the_interface_s_order() -> None:
    from conformance.contract.markers import allure_epic
    from conformance.contract.requirements import PARTS

    options = allure_report.SETTINGS["plugins"]["awesome"]["options"]  # type: ignore[index]
    assert options["defaultSortBy"] == "name,asc"
    assert options["groupBy"] == ["epic", "feature", "story"]
    epics = [allure_epic(part) for part in PARTS]
    assert sorted(epics) == epics and epics[3] == "§5 auth"


def _installed_generator() -> None:
    if shutil.which("npm") is None:
        pytest.skip("Node.js and npm are not installed here")
    installed = allure_report.CACHE / f"allure-{ALLURE_VERSION}" / "node_modules" / "allure"
    if not installed.is_dir():
        pytest.skip(
            f"the pinned Allure {ALLURE_VERSION} is not installed here (`conformance report` "
            "installs it, ~50 MB from npm); CI does not download it"
        )


def test_the_default_report_is_one_file_that_opens_from_disk(tmp_path: Path) -> None:
    _installed_generator()
    results = tmp_path / "allure-results"
    results.mkdir()
    (results / "1-result.json").write_text(
        json.dumps({"uuid": "1", "historyId": "h", "name": "test_x", "status": "passed",
                    "start": 1, "stop": 2, "labels": [{"name": "epic", "value": "§5 auth"}]}),
        encoding="utf-8",
    )  # fmt: skip
    write_overview(results, {**SUMMARY, "verdict": "passed", "incomplete_reason": None})
    assert allure_report.build_report(str(tmp_path), None) == 0
    report = tmp_path / "allure-report"
    pages = sorted(p.name for p in report.iterdir() if p.suffix in (".html", ".js", ""))
    assert pages == ["index.html"]  # no script or data file beside it to fetch
    text = (report / "index.html").read_text(encoding="utf-8")
    scripts = re.findall(r"<script[^>]*\bsrc=[\"']?([^\"'\s>]*)", text)
    assert scripts and all(src.startswith("data:") for src in scripts)
    assert "<title> GPSI conformance: PASSED (https://api.example.com/2025-10-13) </title>" in text


@pytest.mark.skipif(shutil.which("npm") is None, reason="Node.js and npm are not installed here")
def test_a_built_report_loads_nothing_from_the_internet(tmp_path: Path) -> None:
    installed = allure_report.CACHE / f"allure-{ALLURE_VERSION}" / "node_modules" / "allure"
    if not installed.is_dir():
        pytest.skip(
            f"the pinned Allure {ALLURE_VERSION} is not installed here (`conformance report` "
            "installs it, ~50 MB from npm); CI does not download it"
        )
    results = tmp_path / "allure-results"
    results.mkdir()
    (results / "1-result.json").write_text(
        json.dumps(
            {
                "uuid": "1",
                "historyId": "h",
                "name": "test_x",
                "fullName": "auth.test_x",
                "status": "passed",
                "start": 1,
                "stop": 2,
                "labels": [{"name": "epic", "value": "auth"}],
            }
        ),
        encoding="utf-8",
    )
    assert allure_report.build_report(str(tmp_path), None) == 0
    report = tmp_path / "allure-report"
    for page in report.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "googletagmanager" not in text and not remote_loads(text)
