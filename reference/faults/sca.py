"""Fault modes of the sca area (reference/sca/)."""

from __future__ import annotations

from reference.faults.legacy import legacy

legacy(
    "sca-challenge-skipped",
    breaks="an SCA customer's execute releases the transfer at once, without a challenge",
    clause="§3 Quote and transaction: PENDING_AUTHORIZATION with scaChallenge",
    part="transitions",
    caught_by=(
        "test_executing_for_an_sca_customer_asks_for_authorization",
        "test_execute_again_while_awaiting_authorization_answers_409",
    ),
)
legacy(
    "sca-reexecute-accepted",
    breaks="execute again on a quote awaiting authorization releases the transfer",
    clause="§3 Quote and transaction, §7 Errors: 409",
    part="transitions",
    caught_by=("test_execute_again_while_awaiting_authorization_answers_409",),
)
legacy(
    "sca-wrong-code-accepted",
    breaks="any code authorizes an SCA challenge",
    clause="§3 Quote and transaction: valid proof",
    part="errors",
    caught_by=("test_wrong_proofs_never_authorize_and_a_lock_answers_423",),
)
legacy(
    "sca-session-refusal-403",
    breaks="quote authorization without an SCA session is refused with 403 FORBIDDEN",
    clause="§4 Quotes and transactions, §7 Errors: 409 SCA_SESSION_REQUIRED",
    part="errors",
    caught_by=("test_authorization_without_an_sca_session_answers_409",),
)
legacy(
    "sca-expiry-wrong-reason",
    breaks="a transfer whose SCA challenge expired fails with QUOTE_EXECUTION_FAILED",
    clause="§2 Transaction: SCA_NOT_COMPLETED",
    part="transitions",
    caught_by=("test_an_expired_challenge_fails_the_transfer_with_sca_not_completed",),
)
legacy(
    "sca-non-sca-endpoint-200",
    breaks="SCA endpoints answer 200 for customers outside SCA",
    clause="§5 Authentication: 409",
    part="errors",
    caught_by=(
        "test_quote_authorization_answers_409_for_customers_outside_sca",
        "test_sca_login_answers_409_for_customers_outside_sca",
    ),
)
legacy(
    "sca-challenge-everyone",
    breaks="every customer's EUR or USDC execute is challenged, EU or not",
    clause="§5 Authentication: other customers never see a challenge",
    part="auth",
    caught_by=("test_customers_outside_sca_never_see_a_challenge",),
)
legacy(
    "sca-session-short",
    breaks="SCA logins open 30-day sessions",
    clause="§8 Limits: SCA session 180 days",
    part="limits",
    caught_by=("test_an_sca_session_lasts_180_days",),
)
legacy(
    "sca-jit-instructions-shown",
    breaks="a just-in-time quote awaiting SCA authorization shows its paymentInstructions",
    clause="§2 Quote: withheld until the SCA challenge is satisfied",
    part="resources",
    caught_by=("test_a_just_in_time_quote_withholds_its_instructions_while_challenged",),
)
