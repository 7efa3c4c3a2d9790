"""The whole suite against the variant reference (``serve --variant``; SANDBOX.md, "The
variant reference"): a correct server that chose otherwise wherever the interface is open,
all at once (the error code under ``errorCode``, execute answering 202, fees rounded up,
lists oldest first 10 a page under other names, deliveries delayed and out of order, no
``onChainTransaction``). Every such choice must pass: no failure, serial and under xdist,
in every platform mode (issue 34)."""

from __future__ import annotations

import pytest

from conformance.run.embedded import EMBEDDED_QUOTE_LIFETIME_S, QUOTE_LIFETIME_FLAG
from tests.reference.reference_helpers import start_sandbox

from .runner import aimed_at, conformance_run

VARIANT = "--embedded-args=--variant"
MODES = {
    "unregulated-serial": [],
    "unregulated-n2": ["-n", "2"],
    "regulated-n2": ["--regulated=true", "-n", "2"],
    "skip-verification-paperwork-n2": ["--skip-verification-paperwork=true", "-n", "2"],
}


# CI's minutes do not hold a whole run of the suite against the variant: the thorough tier
# (tests/selftest_tier.py) runs it in every mode; CI holds the suite's side of the variant's
# choices in unit tests (tests/test_error_codes.py, tests/test_list_pages.py)
@pytest.mark.slow
@pytest.mark.thorough
@pytest.mark.parametrize("mode", sorted(MODES))
def test_the_suite_passes_the_variant_reference(tmp_path, mode):
    flags = [f for f in MODES[mode] if f.startswith("--")]
    xdist = [f for f in MODES[mode] if not f.startswith("--")]
    result = conformance_run(tmp_path, VARIANT, *flags, *(["--", *xdist] if xdist else []))
    totals = result.summary.get("totals", {})
    assert result.code == 0, (result.output[-4000:], result.summary.get("failures"))
    assert totals["failed"] == 0 and totals["errors"] == 0, result.summary["failures"]
    assert totals["skipped"] == 0, result.summary.get("skips")  # the banner gives every setting
    assert totals["passed"] > 400
    advisories = " ".join(a["message"] for a in result.summary["advisories"])
    assert "no onChainTransaction" in advisories, "the run met the variant, not the reference"


@pytest.mark.slow
@pytest.mark.thorough  # the skip itself is proven in CI by tests/test_list_pages.py
def test_without_pagination_settings_a_record_off_the_first_page_skips_never_fails(tmp_path):
    """A target the suite cannot page (no [pagination]): the tests whose record is not on a
    list's first page skip, naming the settings; none fails."""
    sandbox = start_sandbox("--variant", QUOTE_LIFETIME_FLAG, str(EMBEDDED_QUOTE_LIFETIME_S))
    try:
        flags, env = aimed_at({**sandbox.banner, "pagination": None})
        # a short wait: a record the suite cannot see is awaited that long before it skips
        result = conformance_run(tmp_path, *flags, "--webhook-timeout=5", "--", "-n", "2", env=env)
    finally:
        sandbox.stop()
    totals = result.summary.get("totals", {})
    assert totals.get("failed") == 0 and totals.get("errors") == 0, result.summary["failures"]
    assert totals["passed"] > 400
    groups = result.summary["skips"]
    assert groups, "the variant lists 10 a page: some record is off the first page"
    for group in groups:  # each skip names the settings to supply, as a missing setting
        assert group["cause"] == "missing_setting" and "--pagination" in group["supply"], group
        assert all("[pagination] cursor_parameter" in r for r in group["reasons"]), group
