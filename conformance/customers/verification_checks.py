"""Assertions about verification outcomes (§3 Customer verification, §4 Sandbox behaviours).

Each reads like the clause it checks; the expected values come from
:mod:`~conformance.customers.verification_outcomes`. Where the interface does not show an
outcome, the observation goes to the ``advisory`` callback instead of failing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from conformance.contract import clauses
from conformance.contract.error_bodies import parse_path
from conformance.contract.failures import check
from conformance.customers.events import CustomerEvents
from conformance.customers.onboarding import Onboarding, status_field
from conformance.customers.verification_outcomes import (
    ANY_BUT_ERRORS,
    BUSINESS,
    COMPLETE,
    FINAL,
    FINAL_STATUSES,
    INDIVIDUAL,
    Outcome,
    expected,
)
from conformance.exchange.assertions import required_json
from conformance.exchange.client import ApiResponse
from conformance.webhooks.sink import Delivery

__all__ = [
    "MissingPart",
    "Walk",
    "a_final_customer",
    "assert_customer_status",
    "assert_names_missing",
    "decided_customers",
    "events_for",
    "events_of_walks",
    "individual_packet_parts",
    "submit_and_check",
]

SUBMIT_CLAUSE = clauses.CUSTOMERS_ENDPOINTS + " — POST /verifications"
FINAL_CLAUSE = clauses.CUSTOMER_VERIFICATION_STATES
SUBMISSION_CLAUSE = clauses.CUSTOMER_VERIFICATION_STATES + " — verification submission"
RESOLVE_ERRORS_REQUIREMENT = "VERIFICATION-RESOLVE-ERRORS"
Advisory = Callable[[str], None]
Walk = tuple[dict[str, Any], tuple[str, ...], str]
"""A customer walked to a decision, the event statuses its walk must emit, the walk in words."""


def assert_customer_status(
    status: object, outcome: Outcome, statement: str, advisory: Advisory, *, exchange: Any = None
) -> None:
    """The status is one the outcome allows; an unshown outcome is recorded, never failed."""
    __tracebackhide__ = True
    if not outcome.shown:
        advisory(f"{outcome.clause}: {statement}: the target answered {status}")
        return
    if status == "HOLD" and outcome.statuses == frozenset({"PENDING"}):
        advisory(
            f"{statement}: HOLD where PENDING was expected; transitions into and out of HOLD "
            "are not shown (§3 Customer verification), so this is not a failure"
        )
        return
    check(
        outcome.allows_status(status),
        outcome.clause,
        statement,
        expected=sorted(outcome.statuses or ()),
        observed=status,
        exchange=exchange,
        requirement=outcome.requirement_of(status),
    )


def submit_and_check(
    onboarding: Onboarding,
    customer: dict[str, Any],
    outcome: Outcome,
    stage: str,
    advisory: Advisory,
) -> tuple[ApiResponse, Any]:
    """POST /verifications for the customer and check the answer and the status it leaves.

    Returns the response and the customer's status afterwards. ``stage`` names the
    submission in failure messages ("a complete submission").
    """
    __tracebackhide__ = True
    field = status_field(customer)
    before = onboarding.status(customer["id"])
    response = onboarding.submit(customer["id"])
    if outcome.refused:
        check(
            response.status == 400,
            clauses.ERRORS,
            "POST /verifications on a customer already APPROVED or REJECTED answers 400",
            expected=400,
            observed=response.status,
            exchange=response.exchange,
            requirement="VERIFICATION-FINAL-400",
        )
        after = onboarding.status(customer["id"])
        check(
            after == before,
            FINAL_CLAUSE,
            f"APPROVED and REJECTED are final: a further POST /verifications leaves {field} "
            "unchanged",
            expected=before,
            observed=after,
            requirement="VERIFICATION-FINAL-STATUS-UNCHANGED",
        )
        return response, after
    verification = required_json(
        response,
        SUBMIT_CLAUSE,
        "POST /verifications {customerId} returns a Verification",
        status=(200, 201),
        requirement="VERIFICATION-SUBMIT",
    )
    verification_status = verification.get("verificationStatus")
    if outcome.shown:
        check(
            outcome.allows_verification(verification_status),
            outcome.clause,
            f"after {stage} the Verification's verificationStatus is as stated",
            expected=_allowed_verification(outcome),
            observed=verification_status,
            exchange=response.exchange,
            # missing data answered otherwise than RESOLVE_ERRORS breaks the rule that says so
            requirement=RESOLVE_ERRORS_REQUIREMENT
            if outcome.verification == {"RESOLVE_ERRORS"}
            else outcome.requirement,
        )
    else:
        advisory(f"{outcome.clause}: {stage} answered verificationStatus {verification_status}")
    status = onboarding.settled_status(customer["id"], outcome)
    assert_customer_status(status, outcome, f"{field} after {stage}", advisory)
    return response, status


def _allowed_verification(outcome: Outcome) -> list[str]:
    names = {ANY_BUT_ERRORS: "anything but RESOLVE_ERRORS"}
    return sorted(names.get(v, v) for v in outcome.verification)


def events_for(outcome: Outcome, status: object) -> tuple[str, ...]:
    """The event statuses an outcome requires, the final one read from the observed status."""
    return tuple(str(status) if name == FINAL else name for name in outcome.events)


@dataclass(frozen=True, slots=True)
class MissingPart:
    """One part of a packet, as RESOLVE_ERRORS must name it.

    A field part is named by an error whose ``field`` mentions any of ``fields``; a document
    part by an error that lists ``acceptedDocumentTypes`` (or whose type is about a document).
    ``holder`` is the customer or beneficial owner the error's ``resourceId`` must name.
    """

    label: str
    holder: str
    fields: tuple[str, ...] = ()

    @property
    def is_document(self) -> bool:
        return not self.fields

    def named_by(self, error: dict[str, Any]) -> bool:
        if error.get("resourceId") != self.holder:
            return False
        if self.is_document:
            kind = str(error.get("type", ""))
            return bool(error.get("acceptedDocumentTypes")) or "DOCUMENT" in kind
        field = error.get("field")
        tokens = parse_path(field) if isinstance(field, str) else ()
        return any(name in tokens for name in self.fields)


def individual_packet_parts(customer_id: str) -> dict[str, MissingPart]:
    """The parts of an individual's packet besides its name (§4 Sandbox behaviours)."""
    return {
        "birthDate": MissingPart("birth date", customer_id, ("birthDate",)),
        "nationality": MissingPart("nationality", customer_id, ("nationality",)),
        "identification": MissingPart("idType + identifier", customer_id, ("idType", "identifier")),
        "address": MissingPart("address", customer_id, ("address",)),
        "document": MissingPart("identity document", customer_id),
    }


def assert_names_missing(response: ApiResponse, parts: Sequence[MissingPart]) -> None:
    """RESOLVE_ERRORS whose ``errors`` name every missing part."""
    __tracebackhide__ = True
    body = response.json
    check(
        body.get("verificationStatus") == "RESOLVE_ERRORS",
        SUBMISSION_CLAUSE,
        "POST /verifications with missing data returns RESOLVE_ERRORS",
        observed=body.get("verificationStatus"),
        exchange=response.exchange,
        requirement=RESOLVE_ERRORS_REQUIREMENT,
    )
    errors = [e for e in body.get("errors") or [] if isinstance(e, dict)]
    unnamed = [p.label for p in parts if not any(p.named_by(e) for e in errors)]
    check(
        not unnamed,
        SUBMISSION_CLAUSE,
        "RESOLVE_ERRORS come with errors naming what is missing (MISSING_FIELD with field, "
        "MISSING_IDENTITY_DOCUMENT with acceptedDocumentTypes; resourceId the holder)",
        expected=[p.label for p in parts],
        observed=[
            {k: e.get(k) for k in ("resourceId", "type", "field", "acceptedDocumentTypes")}
            for e in errors
        ],
        hint=f"not named: {', '.join(unnamed)}",
        exchange=response.exchange,
        requirement=RESOLVE_ERRORS_REQUIREMENT,
    )


def a_final_customer(onboarding: Onboarding, kind: str, suffix: str) -> dict[str, Any]:
    """A new customer of ``kind`` brought to a final status by its sandbox ``suffix``.

    Where suffixes resolve at creation the new customer is already final; otherwise its
    complete packet is submitted. ``suffix`` must be one the interface makes final (002, or
    a business number not ending in 001-003).
    """
    __tracebackhide__ = True
    create = onboarding.business if kind == "BUSINESS" else onboarding.individual
    customer = create(suffix)
    field = status_field(customer)
    status = customer.get(field)
    if status not in FINAL_STATUSES:
        onboarding.complete_packet(customer)
        response = onboarding.submit(customer["id"])
        outcome = expected(kind, onboarding.profile, COMPLETE, suffix)
        check(
            response.status in (200, 201),
            SUBMIT_CLAUSE,
            "POST /verifications {customerId} with a complete packet returns a Verification",
            expected="200 or 201",
            observed=(response.status, response.content[:300]),
            exchange=response.exchange,
            requirement="VERIFICATION-SUBMIT",
        )
        status = onboarding.settled_status(customer["id"], outcome)
    check(
        status in FINAL_STATUSES,
        clauses.SANDBOX_BEHAVIOURS,
        f"a {kind.lower()} whose sandbox suffix is {suffix!r} resolves terminally",
        expected=sorted(FINAL_STATUSES),
        observed=status,
    )
    return {**customer, field: status}


def decided_customers(onboarding: Onboarding) -> list[Walk]:
    """An individual (002) and a business (004), each walked to a decision.

    Each comes with the event statuses its walk must emit (none where the platform mode
    refuses the submission) and the walk in words, for the failure message of a wait.
    """
    walked: list[Walk] = []
    for kind, suffix in ((INDIVIDUAL, "002"), (BUSINESS, "004")):
        customer = a_final_customer(onboarding, kind, suffix)
        outcome = expected(kind, onboarding.profile, COMPLETE, suffix)
        status = customer["kybStatus" if kind == BUSINESS else "kycStatus"]
        statuses = () if outcome.refused else events_for(outcome, status)
        walked.append((customer, statuses, f"a complete submission of a {kind.lower()} ({status})"))
    return walked


def events_of_walks(
    customer_events: CustomerEvents, walks: Iterable[Walk]
) -> Iterator[tuple[dict[str, Any], list[Delivery]]]:
    """Each walked customer with the events about it, once those its walk must emit arrived."""
    for customer, statuses, why in walks:
        yield customer, customer_events.wait(customer, statuses, why=why)
