"""The summary's hints: failures clustered on the tests one profile setting decides name the
setting; a bug or two in a family does not."""

from __future__ import annotations

from typing import Any

from conformance.contract.requirements import default_catalogue
from conformance.reporting.mismatch_hints import mismatch_hints

TARGET = {"environment": "sandbox", "regulated": True, "skip_verification_paperwork": False}


def summary(tests: list[tuple[str, str, str]], message: str = "", **target: Any) -> dict[str, Any]:
    """A summary of (nodeid, requirement id, outcome) tests, failures with a message each."""
    failed = [(n, r) for n, r, outcome in tests if outcome == "failed"]
    return {
        "target": {**TARGET, **target},
        "tests": [
            {"nodeid": n, "requirements": [r], "outcome": outcome} for n, r, outcome in tests
        ],
        "failures": [{"nodeid": n, "requirements": [r], "message": message} for n, r in failed],
    }


def hints(tests: list[tuple[str, str, str]], message: str = "", **target: Any) -> list[str]:
    return mismatch_hints(summary(tests, message, **target), default_catalogue())


def test_failures_on_what_the_platform_mode_decides_name_the_mode_settings():
    tests = [(f"t{i}", "SANDBOX-KYC-RESOLVES-AT-CREATION", "failed") for i in range(4)]
    tests += [("ok", "SANDBOX-KYB-002-REJECTED", "passed"), ("other", "AUTH-BASIC-401", "failed")]
    [hint] = hints(tests)
    assert hint.startswith("4 of the 5 tests of the sandbox verification behaviours")
    assert "--regulated true" in hint and "--skip-verification-paperwork false" in hint


def test_one_or_two_failures_in_a_family_are_no_hint():
    tests = [(f"t{i}", "SANDBOX-KYC-RESOLVES-AT-CREATION", "failed") for i in range(2)]
    assert hints(tests) == []
    tests = [(f"t{i}", "SANDBOX-KYC-RESOLVES-AT-CREATION", "failed") for i in range(3)]
    tests += [(f"p{i}", "SANDBOX-KYC-002-REJECTED", "passed") for i in range(4)]
    assert hints(tests) == []  # fewer than half of the family failed
    assert hints([]) == []


def test_failures_on_a_declared_feature_name_the_feature():
    card_ids = [r.id for r in default_catalogue() if r.area == "cards"][:3]
    tests = [(f"c{i}", rid, "failed") for i, rid in enumerate(card_ids)]
    [hint] = hints(tests, features=["cards"])
    assert "declared feature 'cards'" in hint and "--features" in hint
    assert hints(tests, features=[]) == []  # an undeclared feature is not the profile's doing


def test_refused_sandbox_endpoints_name_the_environment():
    message = (
        "§4 ...: expected 2xx; got 401\n  exchange: POST http://t/2025-10-13/sandbox/send -> 401"
    )
    tests = [(f"s{i}", "AUTH-BASIC-401", "failed") for i in range(3)]
    [hint] = hints(tests, message=message)
    assert "--target-environment (sandbox)" in hint
