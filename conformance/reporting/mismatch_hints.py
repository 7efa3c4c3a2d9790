"""Hints in the summary when the failures look like a profile the target does not match.

The target does not show its platform mode, its features, nor the environment its
credentials are for: ``GET /config`` (§4 Platform configuration) answers a PlatformConfig
(§2: UMA domain, proxy subdomain, webhook endpoint, supported currencies, fees, card
tokenization branding) with none of them. So the run takes them from the profile, and one
wrong setting fails every test whose expectation it decides: ``--regulated true`` against an
unregulated platform failed 26 tests with no word about the setting. Where the failures
cluster on the tests a setting decides, the summary names the setting. The verdict does not
change: under the declared profile the failures are failures, and a hint says "if".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from conformance.contract.requirements import Catalogue

__all__ = ["MIN_FAILED", "PATTERNS", "MismatchPattern", "mismatch_hints"]

# A pattern speaks when at least this many of the tests it covers failed, and at least half
# of those that ran: a target with one bug in a family does not suggest a wrong setting.
MIN_FAILED = 3
NOT_SHOWN = "the target does not show it (GET /config carries no such field)"
# the exchange line a failure message ends with, for a request to a sandbox endpoint refused
_SANDBOX_REFUSED = re.compile(r"exchange: [A-Z]+ \S*/sandbox/\S* -> (401|403|404)\b")
# the features whose tests carry requirements of the catalogue area of the same name
FEATURE_AREAS = ("cards", "rule-based-accounts", "sca", "agents")


@dataclass(frozen=True, slots=True)
class MismatchPattern:
    """The tests a profile setting decides, and what to say when most of them fail.

    ``covers(test, target)`` says whether a test of ``summary["tests"]`` (with its failure
    message, if any) is one whose expectation the setting decides; ``advice(failed, ran,
    target)`` is the hint.
    """

    name: str
    covers: Callable[[dict[str, Any], str], bool]
    advice: Callable[[int, int, dict[str, Any]], str]


def _mode_decided(requirements: Iterable[str]) -> bool:
    """The sandbox verification behaviours, whose outcomes the platform mode decides (§4)."""
    return any(
        rid.startswith(("SANDBOX-KYC-", "SANDBOX-KYB-")) or rid == "END-USER-TERMS-NOT-ACCEPTED"
        for rid in requirements
    )


def _mode_advice(failed: int, ran: int, target: dict[str, Any]) -> str:
    regulated = str(target.get("regulated", False)).lower()
    paperwork = str(target.get("skip_verification_paperwork", False)).lower()
    return (
        f"{failed} of the {ran} tests of the sandbox verification behaviours the platform mode "
        f"decides (§4) failed. The platform mode is a profile setting, and {NOT_SHOWN}: this "
        f"run took --regulated {regulated} and --skip-verification-paperwork {paperwork}. If "
        "the platform's settings differ, correct them and run again; if they match, these "
        "failures are the target's."
    )


def _environment_advice(failed: int, ran: int, target: dict[str, Any]) -> str:
    return (
        f"{failed} failed tests met a sandbox endpoint answering 401, 403 or 404. Credentials "
        f"are bound to one environment (§5), and {NOT_SHOWN}: check --target-environment "
        f"({target.get('environment')}) and that the credentials are for that environment."
    )


def _feature_pattern(feature: str, catalogue: Catalogue) -> MismatchPattern:
    ids = frozenset(r.id for r in catalogue if r.area == feature)

    def covers(test: dict[str, Any], message: str) -> bool:
        return bool(ids.intersection(test.get("requirements") or ()))

    def advice(failed: int, ran: int, target: dict[str, Any]) -> str:
        return (
            f"{failed} of the {ran} tests of the declared feature '{feature}' failed. Features "
            f"are profile settings, and {NOT_SHOWN}: if the platform does not have "
            f"'{feature}', take it out of --features; if it does, these failures are the "
            "target's."
        )

    return MismatchPattern(f"feature {feature}", covers, advice)


PATTERNS = (
    MismatchPattern(
        "platform mode",
        lambda test, message: _mode_decided(test.get("requirements") or ()),
        _mode_advice,
    ),
    MismatchPattern(
        "environment",
        lambda test, message: bool(_SANDBOX_REFUSED.search(message)),
        _environment_advice,
    ),
)


def mismatch_hints(summary: dict[str, Any], catalogue: Catalogue) -> list[str]:
    """The hints the summary's failures call for (none for a run without failures)."""
    if not summary.get("failures"):
        return []
    target = summary.get("target") or {}
    messages = {f["nodeid"]: f.get("message") or "" for f in summary["failures"]}
    features = [f for f in target.get("features") or () if f in FEATURE_AREAS]
    patterns = [*PATTERNS, *(_feature_pattern(f, catalogue) for f in features)]
    hints = []
    for pattern in patterns:
        failed = ran = 0
        for test in summary.get("tests") or ():
            if test.get("outcome") not in ("passed", "failed", "errors"):
                continue
            if not pattern.covers(test, messages.get(test["nodeid"], "")):
                continue
            ran += 1
            failed += test["outcome"] != "passed"
        if failed >= MIN_FAILED and 2 * failed >= ran:
            hints.append(pattern.advice(failed, ran, target))
    return hints
