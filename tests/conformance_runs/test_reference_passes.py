"""The whole suite against the reference sandbox, in every platform mode: no failure, no skip."""

from __future__ import annotations

import pytest

from conformance.payments.quote_shapes import UNSUPPORTED_ADVISORY

from .runner import conformance_run

MODES = {
    "unregulated": [],
    "regulated": ["--regulated=true"],
    "skip-verification-paperwork": ["--skip-verification-paperwork=true", "-n", "2"],
}


@pytest.mark.slow
@pytest.mark.long(12)  # seconds, measured
@pytest.mark.parametrize("mode", sorted(MODES))
def test_the_suite_passes_the_reference(tmp_path, mode):
    result = conformance_run(tmp_path, *MODES[mode])
    assert result.code == 0, result.output[-4000:]
    totals = result.summary["totals"]
    assert totals["failed"] == 0 and totals["errors"] == 0, result.summary["failures"]
    assert totals["skipped"] == 0, "every setting is known for the embedded sandbox"
    assert totals["passed"] > 0
    refused = [a for a in result.summary["advisories"] if UNSUPPORTED_ADVISORY in a["message"]]
    assert not refused, "the reference prices every quote shape the suite generates"
    for name in ("junit.xml", "summary.json", "summary.md"):
        assert (tmp_path / name).is_file()
    assert any((tmp_path / "allure-results").iterdir())
