"""What §3 and §4 Sandbox behaviours say happens to a customer, per suffix and platform mode.

Held as data so the tests walk a table instead of an ``if`` ladder. Each :class:`Outcome`
says which ``kycStatus`` / ``kybStatus`` values the interface allows after one stage
(creation, an incomplete submission, a complete submission), which ``verificationStatus``
values, whether the submission is refused (the customer is already final), and which
``CUSTOMER.KYC_*`` / ``CUSTOMER.KYB_*`` events must have been sent, in order.

Where the interface says "not shown" (the outcome of suffix 003) the outcome is
:data:`NOT_SHOWN`: every answer passes and the test records what it saw as an advisory.

Individuals (§4 Sandbox behaviours, "Individual KYC"): the last 3 characters of ``fullName``.
Businesses ("Business KYB"): the last 3 characters of ``businessInfo.registrationNumber``.
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance.contract import clauses
from conformance.ground.profile import TargetProfile

__all__ = [
    "ANY_BUT_ERRORS",
    "BUSINESS",
    "COMPLETE",
    "CREATION",
    "FINAL",
    "FINAL_STATUSES",
    "INCOMPLETE",
    "INDIVIDUAL",
    "NOT_SHOWN",
    "RESOLVES_AT_CREATION",
    "RESOLVES_ON_SUBMISSION",
    "SUFFIXES",
    "Outcome",
    "expected",
    "platform_mode",
    "suffix_class",
]

INDIVIDUAL = "INDIVIDUAL"
BUSINESS = "BUSINESS"

# Platform modes. Unregulated platforms (the default) resolve suffixes on a complete
# submission; regulated platforms, or Skip verification paperwork on, resolve individuals at
# creation and final business suffixes before the packet is validated.
RESOLVES_ON_SUBMISSION = "unregulated"
RESOLVES_AT_CREATION = "regulated or skip-verification-paperwork"

# The suffixes the suite walks; "" is a name or number without a numeric suffix.
SUFFIXES = ("001", "002", "003", "004", "")

FINAL = "<final>"  # in ``events``: the terminal event matching the observed final status
FINAL_STATUSES = frozenset({"APPROVED", "REJECTED"})
ANY_BUT_ERRORS = "<not RESOLVE_ERRORS>"

CREATION = "creation"
INCOMPLETE = "incomplete submission"
COMPLETE = "complete submission"


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the interface allows after one stage.

    ``statuses`` is None when the outcome is not shown (anything passes).
    ``verification`` holds the allowed ``verificationStatus`` values (``ANY_BUT_ERRORS``:
    anything except ``RESOLVE_ERRORS``); empty when the stage is not a submission or the
    submission is ``refused`` (answered 400 because the status is final).
    """

    statuses: frozenset[str] | None
    verification: frozenset[str] = frozenset()
    refused: bool = False
    events: tuple[str, ...] = ()
    clause: str = clauses.SANDBOX_BEHAVIOURS
    # the requirement stating this outcome, which a status it does not allow breaks; and the
    # one a status still UNVERIFIED breaks instead, where the stage must resolve the suffix
    requirement: str | None = None
    unresolved: str | None = None

    @property
    def shown(self) -> bool:
        return self.statuses is not None

    def allows_status(self, status: object) -> bool:
        return self.statuses is None or status in self.statuses

    def requirement_of(self, status: object) -> str | None:
        """The requirement ``status`` breaks when this outcome does not allow it."""
        if self.unresolved is not None and status == "UNVERIFIED":
            return self.unresolved
        return self.requirement

    def allows_verification(self, status: object) -> bool:
        if not self.verification:
            return True
        if ANY_BUT_ERRORS in self.verification:
            return status != "RESOLVE_ERRORS"
        return status in self.verification


NOT_SHOWN = Outcome(None, clause=clauses.SANDBOX_BEHAVIOURS + ": outcome of suffix 003 not shown")

_STATES = clauses.CUSTOMER_VERIFICATION_STATES
_KYC = clauses.SANDBOX_BEHAVIOURS + " — Individual KYC"
_KYB = clauses.SANDBOX_BEHAVIOURS + " — Business KYB"
_ANY_FINAL = FINAL_STATUSES
_ERRORS = frozenset({"RESOLVE_ERRORS"})
_DECIDED = frozenset({ANY_BUT_ERRORS})
_MANUAL_REVIEW = frozenset({"PENDING_MANUAL_REVIEW"})
# what a suffix that did not resolve at all breaks, where suffixes resolve at creation
_UNRESOLVED_REQUIREMENT = "SANDBOX-KYC-RESOLVES-AT-CREATION"
_FINAL_REQUIREMENT = "VERIFICATION-FINAL-STATUS-UNCHANGED"


def _o(statuses: set[str] | frozenset[str], clause: str, **kwargs: object) -> Outcome:
    return Outcome(frozenset(statuses), clause=clause, **kwargs)  # type: ignore[arg-type]


# (customer type, mode, stage, suffix class) -> Outcome
_TABLE: dict[tuple[str, str, str, str], Outcome] = {}


def _add(kind: str, mode: str, stage: str, outcomes: dict[str, Outcome]) -> None:
    for suffix, outcome in outcomes.items():
        _TABLE[kind, mode, stage, suffix] = outcome


# -- individuals -----------------------------------------------------------------------------
# "any value other than 001 or 003 is terminal (no suffix gives an approved customer)": the
# parenthesis reads either way (a plain name is approved / no suffix approves), so "other"
# accepts either final status; 002 is stated as rejection.
_add(INDIVIDUAL, RESOLVES_ON_SUBMISSION, CREATION, {
    s: _o({"UNVERIFIED"}, f"{_KYC}: customers stay UNVERIFIED until POST /verifications",
          requirement="SANDBOX-KYC-UNREGULATED-WAITS-FOR-SUBMISSION")
    for s in ("001", "002", "003", "other")
})  # fmt: skip
_add(INDIVIDUAL, RESOLVES_AT_CREATION, CREATION, {
    "001": _o({"PENDING"}, f"{_KYC}: 001 is PENDING at creation where suffixes resolve then",
              requirement="SANDBOX-KYC-001-003-SUBMITTABLE",
              unresolved=_UNRESOLVED_REQUIREMENT),
    "003": _o({"PENDING"}, f"{_KYC}: 003 is PENDING at creation where suffixes resolve then",
              requirement="SANDBOX-KYC-001-003-SUBMITTABLE",
              unresolved=_UNRESOLVED_REQUIREMENT),
    "002": _o({"REJECTED"}, f"{_KYC}: 002 resolves terminally as rejection",
              requirement="SANDBOX-KYC-002-REJECTED",
              unresolved=_UNRESOLVED_REQUIREMENT),
    "other": _o(_ANY_FINAL, f"{_KYC}: any suffix other than 001 or 003 is terminal",
                requirement="SANDBOX-KYC-OTHER-SUFFIX-APPROVED",
                unresolved=_UNRESOLVED_REQUIREMENT),
})  # fmt: skip
_add(INDIVIDUAL, RESOLVES_ON_SUBMISSION, INCOMPLETE, {
    s: _o({"UNVERIFIED"}, f"{_KYC}: an incomplete submission returns RESOLVE_ERRORS; the "
          "suffix decides only once the submission is complete", verification=_ERRORS,
          requirement="SANDBOX-KYC-SUFFIX-ONLY-WHEN-COMPLETE")
    for s in ("001", "002", "003", "other")
})  # fmt: skip
_add(INDIVIDUAL, RESOLVES_AT_CREATION, INCOMPLETE, {
    "001": _o({"PENDING"}, f"{_KYC}: 001 requires a complete packet", verification=_ERRORS,
              requirement="SANDBOX-KYC-001-003-COMPLETE-PACKET"),
    "003": _o({"PENDING"}, f"{_KYC}: 003 requires a complete packet", verification=_ERRORS,
              requirement="SANDBOX-KYC-001-003-COMPLETE-PACKET"),
    "002": _o({"REJECTED"}, _STATES + ": REJECTED is final; POST /verifications "
              "answers 400", refused=True, requirement=_FINAL_REQUIREMENT),
    "other": _o(_ANY_FINAL, _STATES + ": a final status is unchanged; POST "
                "/verifications answers 400", refused=True, requirement=_FINAL_REQUIREMENT),
})  # fmt: skip
_add(INDIVIDUAL, RESOLVES_ON_SUBMISSION, COMPLETE, {
    "001": _o({"PENDING"}, f"{_KYC}: a complete 001 packet gives PENDING_MANUAL_REVIEW and "
              "kycStatus PENDING", verification=_MANUAL_REVIEW, events=("PENDING",),
              requirement="VERIFICATION-SANDBOX-001-MANUAL-REVIEW"),
    "002": _o({"REJECTED"}, f"{_KYC}: 002 resolves terminally as rejection once complete",
              verification=_DECIDED, events=("PENDING", "REJECTED"),
              requirement="SANDBOX-KYC-002-REJECTED"),
    "other": _o(_ANY_FINAL, f"{_KYC}: any suffix other than 001 or 003 is terminal once complete",
                verification=_DECIDED, events=("PENDING", FINAL),
                requirement="SANDBOX-KYC-OTHER-SUFFIX-APPROVED"),
    "003": NOT_SHOWN,
})  # fmt: skip
_add(INDIVIDUAL, RESOLVES_AT_CREATION, COMPLETE, {
    "001": _o({"PENDING"}, f"{_KYC}: resubmitting a complete 001 packet gives "
              "PENDING_MANUAL_REVIEW and kycStatus PENDING", verification=_MANUAL_REVIEW,
              requirement="VERIFICATION-SANDBOX-001-MANUAL-REVIEW"),
    # final since creation: a further submission is refused and changes nothing
    "002": _TABLE[INDIVIDUAL, RESOLVES_AT_CREATION, INCOMPLETE, "002"],
    "other": _TABLE[INDIVIDUAL, RESOLVES_AT_CREATION, INCOMPLETE, "other"],
    "003": NOT_SHOWN,
})  # fmt: skip

# -- businesses ------------------------------------------------------------------------------
for _mode in (RESOLVES_ON_SUBMISSION, RESOLVES_AT_CREATION):
    _add(BUSINESS, _mode, CREATION, {
        s: _o({"UNVERIFIED"}, f"{_KYB}: businesses are created UNVERIFIED and never resolve "
              "at creation", requirement="SANDBOX-KYB-UNVERIFIED-AT-CREATION")
        for s in ("001", "002", "003", "other")
    })  # fmt: skip
    _add(BUSINESS, _mode, COMPLETE, {
        "001": _o({"PENDING"}, _STATES + ": a complete submission advances to "
                  "PENDING (sandbox 001: PENDING_MANUAL_REVIEW)", verification=_DECIDED,
                  events=("PENDING",), requirement="KYB-SUBMISSION-PENDING"),
        "002": _o({"REJECTED"}, f"{_KYB}: 002 rejects on the first complete submission",
                  verification=_DECIDED, events=("PENDING", "REJECTED"),
                  requirement="SANDBOX-KYB-002-REJECTED"),
        "other": _o({"APPROVED"}, f"{_KYB}: a number not ending in 001, 002 or 003 "
                    "auto-approves once complete", verification=_DECIDED,
                    events=("PENDING", "APPROVED"), requirement="SANDBOX-KYB-AUTO-APPROVE"),
        "003": NOT_SHOWN,
    })  # fmt: skip
_add(BUSINESS, RESOLVES_ON_SUBMISSION, INCOMPLETE, {
    s: _o({"UNVERIFIED"}, f"{_KYB}: on unregulated platforms every suffix validates the "
          "packet first", verification=_ERRORS,
          requirement="SANDBOX-KYB-UNREGULATED-VALIDATES-PACKET")
    for s in ("001", "002", "003", "other")
})  # fmt: skip
_add(BUSINESS, RESOLVES_AT_CREATION, INCOMPLETE, {
    "001": _o({"UNVERIFIED"}, f"{_KYB}: 001 still needs business information, business "
              "documents and at least one beneficial owner", verification=_ERRORS,
              requirement="SANDBOX-KYB-001-003-NEED-PACKET"),
    "003": _o({"UNVERIFIED"}, f"{_KYB}: 003 still needs business information, business "
              "documents and at least one beneficial owner", verification=_ERRORS,
              requirement="SANDBOX-KYB-001-003-NEED-PACKET"),
    "002": _o({"REJECTED"}, f"{_KYB}: a final suffix resolves before packet validation; 002 "
              "rejects", verification=_DECIDED, events=("REJECTED",),
              requirement="SANDBOX-KYB-FINAL-SUFFIX-SKIPS-PACKET"),
    "other": _o({"APPROVED"}, f"{_KYB}: a final suffix resolves before packet validation; a "
                "number not ending in 001, 002 or 003 auto-approves", verification=_DECIDED,
                events=("APPROVED",), requirement="SANDBOX-KYB-FINAL-SUFFIX-SKIPS-PACKET"),
})  # fmt: skip


def platform_mode(profile: TargetProfile) -> str:
    """The profile's platform mode, as the sandbox behaviours distinguish them."""
    if profile.regulated or profile.skip_verification_paperwork:
        return RESOLVES_AT_CREATION
    return RESOLVES_ON_SUBMISSION


def suffix_class(suffix: str) -> str:
    """``001``, ``002`` and ``003`` stand for themselves; every other ending is ``other``."""
    return suffix if suffix in ("001", "002", "003") else "other"


def expected(kind: str, profile: TargetProfile, stage: str, suffix: str) -> Outcome:
    """The outcome the interface states for a customer type, mode, stage and suffix."""
    return _TABLE[kind, platform_mode(profile), stage, suffix_class(suffix)]
