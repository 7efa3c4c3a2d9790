"""The whole suite against the variant reference (``serve --variant``; SANDBOX.md, "The
variant reference"): a correct server that chose otherwise wherever the interface is open,
all at once (the error code under ``errorCode``, execute answering 202, fees rounded up,
lists oldest first 10 a page under other names, deliveries delayed and out of order, no
``onChainTransaction``). Every such choice must pass: no failure, serial and under xdist,
in every platform mode (issue 34)."""

from __future__ import annotations

import pytest

from .runner import conformance_run

VARIANT = "--embedded-args=--variant"
MODES = {
    "unregulated-serial": [],
    "unregulated-n2": ["-n", "2"],
    "regulated-n2": ["--regulated=true", "-n", "2"],
    "skip-verification-paperwork-n2": ["--skip-verification-paperwork=true", "-n", "2"],
}


@pytest.mark.slow
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
