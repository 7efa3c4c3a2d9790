"""§3 Quote and transaction — SCA: execute for a customer who requires SCA answers the quote
PENDING_AUTHORIZATION with an scaChallenge and releases nothing; execute again answers 409;
valid proofs authorize the challenges one after the other (conversion and payout may each
need one) and then the transfer moves once; a challenge left to expire fails the transfer
with SCA_NOT_COMPLETED (§2 Transaction)."""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.sca.flows import LOGIN_HOOK, PROOF_HOOK, challenge_of

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = clauses.QUOTE_AND_TRANSACTION_STATES
AWAITING = "PENDING_AUTHORIZATION"


@pytest.fixture(scope="module")
def wallet(sca):
    return sca.wallet(("EUR", "USD"))


@pytest.mark.requirement("QUOTE-EXECUTE-SCA-CHALLENGE")
def test_executing_for_an_sca_customer_asks_for_authorization(sca, wallet):
    source = wallet.sources["EUR"]["id"]
    before = sca.funding.account_balances(wallet.customer_id, source)
    quote = sca.challenged(wallet)
    sca.released_nothing(wallet, quote, before)


@pytest.mark.requirement("QUOTE-EXECUTE-SCA-409")
def test_execute_again_while_awaiting_authorization_answers_409(sca, wallet):
    source = wallet.sources["EUR"]["id"]
    before = sca.funding.account_balances(wallet.customer_id, source)
    quote = sca.challenged(wallet)
    again = sca.quotes.execute(quote["id"])
    check(
        again.status == 409,
        CLAUSE,
        "calling execute again on a quote awaiting authorization returns 409",
        expected=409,
        observed=(again.status, again.content[:200]),
        exchange=again.exchange,
    )
    sca.released_nothing(wallet, quote, before)


@needs_adapter_hook(LOGIN_HOOK, PROOF_HOOK)
@pytest.mark.requirement("QUOTE-AUTHORIZE-RECHECK")
def test_valid_proofs_authorize_each_challenge_then_the_transfer_moves_once(
    sca, wallet, payment_events
):
    source = wallet.sources["EUR"]["id"]
    sca.login_ok(wallet.customer_id)
    before = sca.funding.account_balances(wallet.customer_id, source)
    quote = sca.challenged(wallet, destination="USD")  # conversion and payout
    answers = sca.authorize_all(wallet.customer_id, quote)
    seen = [challenge_of(quote)] + [challenge_of(a) for a in answers[:-1]]
    ids = [c.get("id") for c in seen if c is not None]
    check(
        len(ids) == len(set(ids)) == len(seen),
        CLAUSE,
        "after a valid proof the status is re-checked; while still PENDING_AUTHORIZATION the "
        "quote carries the next challenge to authorize",
        observed=[(a.get("status"), challenge_of(a)) for a in answers],
    )
    transaction = sca.history.completed(wallet.customer_id, quote["transactionId"])
    after = sca.funding.account_balances(wallet.customer_id, source)
    check(
        before.total - after.total == quote["totalSendingAmount"],
        CLAUSE,
        "once the last challenge is authorized the transfer is released: the source is "
        "debited by the sending amount, once",
        expected=quote["totalSendingAmount"],
        observed={"debited": before.total - after.total, "transaction": transaction.get("status")},
    )
    events = payment_events.wait(
        quote["transactionId"],
        ["PROCESSING", "COMPLETED"],
        why="an authorized transfer is accepted by the rail (PROCESSING) and settles (COMPLETED)",
    )
    payment_events.check(events)


@pytest.mark.requirement("TRANSACTION-SCA-NOT-COMPLETED")
@pytest.mark.starts_early("challenge_left_to_expire")
def test_an_expired_challenge_fails_the_transfer_with_sca_not_completed(
    sca, challenge_left_to_expire
):
    """Waits until the target's clock has passed the challenge's expiresAt (its Date
    header, or the time since the quote's creation), bounded by that instant plus a margin;
    the challenge is made when the run starts and this test runs last, so the wait overlaps
    with the rest of the run (the embedded sandbox's quotes live 3 s)."""
    wallet, quote = challenge_left_to_expire
    challenge = challenge_of(quote) or {}
    sca.quotes.wait_past(
        {
            "id": quote.get("id"),
            "createdAt": quote.get("createdAt"),
            "expiresAt": challenge.get("expiresAt"),
        },
        what=f"the SCA challenge of quote {quote.get('id')} to expire",
        limit_clause=None,  # a challenge's lifetime is not shown
    )
    transaction = sca.history.wait_for_transaction(
        wallet.customer_id,
        quote["transactionId"],
        lambda t: t.get("status") in ("FAILED", "COMPLETED", "EXPIRED"),
        why="a transfer whose SCA challenge expired ends: FAILED with SCA_NOT_COMPLETED",
    )
    check(
        (transaction.get("status"), transaction.get("failureReason"))
        == ("FAILED", "SCA_NOT_COMPLETED"),
        clauses.TRANSACTION,
        "a transfer whose SCA challenge expired fails with failureReason SCA_NOT_COMPLETED",
        expected=("FAILED", "SCA_NOT_COMPLETED"),
        observed=(transaction.get("status"), transaction.get("failureReason")),
    )
