"""Fault modes of the sca area (reference/sca/)."""

from __future__ import annotations

from typing import Any

from reference.customers.store import Customer
from reference.faults.registry import fault
from reference.kernel.errors import ApiError
from reference.kernel.services import Services
from reference.payments.quote_store import Quote
from reference.sca import authentication

# The session length served instead of SESSION_DAYS, and the reason an expiry fails with.
SHORT_SESSION_DAYS = 30
WRONG_EXPIRY_REASON = "QUOTE_EXECUTION_FAILED"


@fault(
    "sca-challenge-skipped",
    at=authentication.CHALLENGED_ON_EXECUTE,
    clause="§3 Quote and transaction: PENDING_AUTHORIZATION with scaChallenge",
    part="transitions",
    caught_by=(
        "test_executing_for_an_sca_customer_asks_for_authorization",
        "test_execute_again_while_awaiting_authorization_answers_409",
    ),
)
def never_challenge_on_execute(challenged: bool, *, quote: Quote) -> bool:
    """an SCA customer's execute releases the transfer at once, without a challenge"""
    return False


@fault(
    "sca-reexecute-accepted",
    at=authentication.REPEAT_EXECUTE_RELEASES,
    clause="§3 Quote and transaction, §7 Errors: 409",
    part="transitions",
    caught_by=("test_execute_again_while_awaiting_authorization_answers_409",),
)
def release_on_repeat_execute(
    released: Quote | None, *, services: Services, quote: Quote
) -> Quote | None:
    """execute again on a quote awaiting authorization releases the transfer"""
    return authentication.lift_challenge(services, quote)


@fault(
    "sca-wrong-code-accepted",
    at=authentication.PROOF_VALID,
    clause="§3 Quote and transaction: valid proof",
    part="errors",
    caught_by=("test_wrong_proofs_never_authorize_and_a_lock_answers_423",),
)
def any_proof_is_valid(valid: bool, *, factor: Any) -> bool:
    """any code authorizes an SCA challenge"""
    return True


@fault(
    "sca-session-refusal-403",
    at=authentication.SESSION_REFUSAL,
    clause="§4 Quotes and transactions, §7 Errors: 409 SCA_SESSION_REQUIRED",
    part="errors",
    caught_by=("test_authorization_without_an_sca_session_answers_409",),
)
def refuse_without_session_with_403(refusal: ApiError, *, customer: Customer) -> ApiError:
    """quote authorization without an SCA session is refused with 403 FORBIDDEN"""
    return ApiError(403, "FORBIDDEN", f"{customer.id} has no SCA session")


@fault(
    "sca-expiry-wrong-reason",
    at=authentication.EXPIRY_FAILURE_REASON,
    clause="§2 Transaction: SCA_NOT_COMPLETED",
    part="transitions",
    caught_by=("test_an_expired_challenge_fails_the_transfer_with_sca_not_completed",),
)
def expiry_fails_as_execution_failure(reason: str) -> str:
    """a transfer whose SCA challenge expired fails with QUOTE_EXECUTION_FAILED"""
    return WRONG_EXPIRY_REASON


@fault(
    "sca-non-sca-endpoint-200",
    at=authentication.REFUSES_OUTSIDE_CUSTOMER,
    clause="§5 Authentication: 409",
    part="errors",
    caught_by=(
        "test_quote_authorization_answers_409_for_customers_outside_sca",
        "test_sca_login_answers_409_for_customers_outside_sca",
    ),
)
def serve_customers_outside_sca(refuses: bool, *, customer: Customer) -> bool:
    """SCA endpoints answer 200 for customers outside SCA"""
    return False


@fault(
    "sca-challenge-everyone",
    at=authentication.REQUIRED,
    clause="§5 Authentication: other customers never see a challenge",
    part="auth",
    caught_by=("test_customers_outside_sca_never_see_a_challenge",),
)
def everyone_needs_sca(required: bool, *, quote: Quote) -> bool:
    """every customer's EUR or USDC execute is challenged, EU or not"""
    return True


@fault(
    "sca-session-short",
    at=authentication.SESSION_LENGTH_DAYS,
    clause="§8 Limits: SCA session 180 days",
    part="limits",
    caught_by=("test_an_sca_session_lasts_180_days",),
)
def short_sessions(days: int) -> int:
    """SCA logins open 30-day sessions"""
    return SHORT_SESSION_DAYS


@fault(
    "sca-jit-instructions-shown",
    at=authentication.CHALLENGED_QUOTE_FIELDS,
    clause="§2 Quote: withheld until the SCA challenge is satisfied",
    part="resources",
    caught_by=("test_a_just_in_time_quote_withholds_its_instructions_while_challenged",),
)
def show_withheld_instructions(fields: dict[str, Any], *, withheld: Any) -> dict[str, Any]:
    """a just-in-time quote awaiting SCA authorization shows its paymentInstructions"""
    return {**fields, "paymentInstructions": withheld}
