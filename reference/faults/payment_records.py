"""Fault modes of executing, refunding and rendering money records (reference/payments/).

Some break a money-movement rule the way a real server was seen to break it, narrower than
the blunt fault beside them (``jit-quote-executable``, ``sca-non-sca-endpoint-200``): the
server behaves correctly on the path an older check looked at and wrongly on another. Others
break the shape of one answer per money resource, the one the resources part reads.
"""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from reference.accounts import api as internal_accounts_api
from reference.accounts import external_accounts, funding, ledger
from reference.accounts.external_accounts import ExternalAccount
from reference.accounts.internal_accounts import InternalAccount
from reference.faults.registry import fault
from reference.kernel.clock import later_than
from reference.kernel.errors import ApiError
from reference.kernel.services import Services
from reference.payments import execution, quote_store, quotes_api, rate_refusals, transactions_api
from reference.payments import transaction_store as txns
from reference.payments.quote_store import Quote
from reference.payments.transaction_store import Transaction
from reference.sca import authentication as sca

# How long the lock stays free between an execute's check and its debit, so concurrent
# executes really interleave.
RACE_WINDOW_S = 0.1
# The failureReason a completing transaction keeps.
STALE_FAILURE_REASON = "PAYOUT_RETURNED"
# Statuses of card transactions (§2 CardTransaction) a broken server applies to type=CARD.
CARD_STATUSES = frozenset({"SETTLED", "DECLINED", "VOIDED", "EXCEPTION"})
TRANSACTION_PREFIX = "Transaction:"
BAD_EXTERNAL_STATUS = "VERIFIED_ACTIVE"


@fault(
    "execute-double-debit",
    at=execution.REPEAT_ANSWER,
    clause="§3 Quote and transaction: execute moves a PENDING quote; DESIGN: debit once",
    part="transitions",
    caught_by=("test_a_second_execute_debits_nothing",),
)
def debit_again(answer: Quote | None, *, services: Services, quote: Quote) -> Quote | None:
    """a second execute of an executed quote answers 200 and debits the source again"""
    transaction = execution.transaction_of(services, quote)
    ledger.post(
        services.db, quote.source_account_id, -transaction.sent_amount, ledger.DEBIT, transaction.id
    )
    return quote


@fault(
    "execute-after-expiry",
    at=execution.EXPIRED_REFUSAL,
    clause="§3 Quote and transaction: before expiresAt; §7 Errors: QUOTE_EXPIRED",
    part="transitions",
    caught_by=("test_an_expired_quote_is_not_executed",),
)
def execute_expired(refusal: ApiError | None, *, quote: Quote) -> ApiError | None:
    """a quote past expiresAt still executes"""
    return None


@fault(
    "refund-event-missing",
    at=execution.REFUND_ANNOUNCED,
    clause="§3 Quote and transaction, §6 Events: refund events",
    part="webhooks",
    # the envelope and status tests wait for the same events: blocked by this one's cause
    caught_by=("test_payment_events_follow_the_state_machine",),
)
def refund_unannounced(announced: bool, *, transaction: Transaction) -> bool:
    """a failed payout is refunded but no OUTGOING_PAYMENT.REFUND_* event is sent"""
    return False


@fault(
    "money-leak-on-refund",
    at=execution.REFUND_AMOUNT,
    clause="§2 Transaction: a debited amount is refunded automatically",
    part="transitions",
    caught_by=(
        "test_money_is_conserved_through_funding_payments_and_refunds",
        "test_a_failed_payout_fails_and_its_debit_is_refunded",
    ),
)
def refund_one_unit_less(amount: int, *, transaction: Transaction) -> int:
    """the automatic refund credits back 1 unit less than was debited"""
    return amount - 1


def _check_then_carry_out(services: Services, platform_id: str, quote_id: str) -> Quote:
    """Check the quote in one DB transaction and carry it out in another, the lock free
    between them."""
    with services.db.transaction():
        execution.check_executable(services, execution.load_quote(services, platform_id, quote_id))
    time.sleep(RACE_WINDOW_S)  # the lock is free: another execute passes the same check
    with services.db.transaction():
        return execution.release(services, execution.load_quote(services, platform_id, quote_id))


@fault(
    "execute-not-atomic",
    at=execution.PROCEDURE,
    clause="§3 Quote and transaction; DESIGN: debit once",
    part="transitions",
    caught_by=("test_simultaneous_executes_of_one_quote_debit_the_source_once",),
)
def execute_in_two_transactions(procedure: execution.Procedure) -> execution.Procedure:
    """execute checks the quote's status and debits in two DB transactions, so concurrent
    executes can each debit"""
    return _check_then_carry_out


@fault(
    "rate-refusal-debits",
    at=rate_refusals.EXPIRED_TRANSACTION,
    clause="§3 Quote and transaction: nothing is exchanged",
    part="transitions",
    caught_by=("test_a_refused_rate_exchanges_nothing_and_a_new_quote_recovers",),
)
def debit_on_refusal(transaction: Transaction, *, services: Services, quote: Quote) -> Transaction:
    """an execute whose quoted rate is refused answers QUOTE_RATE_UNAVAILABLE but debits the
    source"""
    ledger.post(
        services.db, quote.source_account_id, -transaction.sent_amount, ledger.DEBIT, transaction.id
    )
    return transaction


@fault(
    "quote-amount-as-string",
    at=quotes_api.CREATED_BODY,
    clause="§2 Quote: integers",
    part="resources",
    caught_by=("test_a_quote_describes_the_request_it_answers",),
)
def amount_as_string(body: dict[str, Any], *, quote: Quote) -> dict[str, Any]:
    """quotes render totalSendingAmount as a string"""
    return {**body, "totalSendingAmount": str(body.get("totalSendingAmount"))}


@fault(
    "quote-status-repeated",
    at=quotes_api.CREATED_JSON,
    clause="Conventions: bodies are JSON (a member named once)",
    part="resources",
    caught_by=("test_a_quote_describes_the_request_it_answers",),
)
def status_twice(text: bytes, *, quote: Quote) -> bytes:
    """POST /quotes answers "status" twice: "COMPLETED" first, the quote's own status last
    (a reader that keeps the last value sees a sound quote)"""
    assert text.startswith(b"{")
    return b'{"status": "COMPLETED", ' + text[1:]


@fault(
    "quote-description-null",
    at=quotes_api.READ_BODY,
    clause="§2 Quote: description is a string (no null where a type is named)",
    part="resources",
    caught_by=("test_a_quote_describes_the_request_it_answers",),
)
def quote_description_null(body: dict[str, Any], *, quote: Quote) -> dict[str, Any]:
    """quotes sent no description render "description": null instead of omitting it"""
    return {**body, "description": body.get("description")}


@fault(
    "transaction-description-null",
    at=transactions_api.LISTED_BODY,
    clause="§2 Transaction: description, as on the quote, is a string (no null)",
    part="resources",
    caught_by=("test_a_transaction_held_for_compliance_review_states_why",),
)
def transaction_description_null(
    body: dict[str, Any], *, transaction: Transaction
) -> dict[str, Any]:
    """transactions listed by GET /transactions whose quote had no description render
    "description": null instead of omitting it"""
    return {**body, "description": body.get("description")}


@fault(
    "transaction-id-unprefixed",
    at=transactions_api.LISTED_BODY,
    clause="§2 Transaction: id",
    part="resources",
    caught_by=(
        "test_a_transaction_names_its_customer_quote_and_kind",
        "test_a_transaction_carries_the_parties_and_amounts_of_its_quote",
    ),
)
def id_unprefixed(body: dict[str, Any], *, transaction: Transaction) -> dict[str, Any]:
    """transactions render id without the Transaction: prefix"""
    return {**body, "id": str(body.get("id", "")).removeprefix(TRANSACTION_PREFIX)}


@fault(
    "internal-account-balance-missing",
    at=internal_accounts_api.LISTED_BODY,
    clause="§2 InternalAccount: available and total balance",
    part="resources",
    caught_by=("test_the_available_balance_never_exceeds_the_total",),
)
def no_available_balance(body: dict[str, Any], *, account: InternalAccount) -> dict[str, Any]:
    """internal accounts omit the available balance"""
    return {key: value for key, value in body.items() if key != "availableBalance"}


@fault(
    "external-account-bad-status",
    at=external_accounts.CREATED_BODY,
    clause="§2 ExternalAccount: status",
    part="resources",
    caught_by=("test_an_external_account_carries_its_owner_currency_and_account_info",),
)
def status_outside_the_values(body: dict[str, Any], *, account: ExternalAccount) -> dict[str, Any]:
    """external accounts render status VERIFIED_ACTIVE, outside the three values"""
    return {**body, "status": BAD_EXTERNAL_STATUS}


@fault(
    "sca-non-sca-authorize-executes",
    at=sca.OUTSIDE_AUTHORIZE_RELEASES,
    clause="§5 Authentication: SCA endpoints return 409 for other customers",
    part="errors",
    caught_by=("test_quote_authorization_answers_409_for_customers_outside_sca",),
)
def authorize_releases_pending(releases: bool, *, quote: Quote) -> bool:
    """quote authorization for a customer outside SCA releases a PENDING quote (200); on an
    executed quote it still answers 409"""
    return quote.status == quote_store.PENDING


@fault(
    "jit-execute-starts-transfer",
    at=execution.UNCHECKED_ANSWER,
    clause="§4 Quotes rule 2: never executed with the execute endpoint",
    part="transitions",
    caught_by=("test_the_execute_endpoint_does_not_execute_a_just_in_time_quote",),
)
def start_just_in_time_transfer(
    answer: Quote | None, *, services: Services, quote: Quote
) -> Quote | None:
    """execute on a just-in-time quote answers 200 PROCESSING and starts its transaction
    (PROCESSING, event), the quote read back still PENDING"""
    if not (funding.is_realtime(quote.fields) and quote.status == quote_store.PENDING):
        return answer
    transaction = txns.load(services.db, quote.platform_id, quote.transaction_id)
    if transaction is None:
        return answer
    stamp = later_than(max(transaction.updated_at, quote.updated_at))
    transaction = txns.save(services.db, transaction, stamp, status=txns.PROCESSING)
    services.webhooks.enqueue_event(
        transaction.platform_id,
        execution.EVENT_PREFIX + txns.PROCESSING,
        txns.render(transaction),
        timestamp=stamp,
    )
    return replace(quote, status=quote_store.PROCESSING, updated_at=stamp)


@fault(
    "jit-instructions-missing-non-usd",
    at=quotes_api.READ_BODY,
    clause="§2 Quote: present for just-in-time funding",
    part="resources",
    caught_by=("test_just_in_time_quotes_in_every_supported_currency_carry_instructions",),
)
def no_instructions_unless_usd(body: dict[str, Any], *, quote: Quote) -> dict[str, Any]:
    """a just-in-time quote funded in a currency other than USD is answered with an empty
    paymentInstructions"""
    source = body.get("source") or {}
    if funding.is_realtime(body) and source.get("currency") != "USD":
        return {**body, "paymentInstructions": []}
    return body


@fault(
    "completed-failure-reason",
    at=execution.COMPLETED_FAILURE_REASON,
    clause="§2 Transaction: failureReason is set with FAILED",
    part="resources",
    caught_by=("test_a_transaction_names_its_customer_quote_and_kind",),
)
def keep_a_failure_reason(reason: str | None, *, transaction: Transaction) -> str | None:
    """a transaction that completes keeps a failureReason (PAYOUT_RETURNED) in every read
    path"""
    return STALE_FAILURE_REASON


@fault(
    "card-status-filter-card-statuses",
    at=transactions_api.QUERY_REFUSED,
    clause="§4, §7: status combined with type=CARD returns 400",
    part="errors",
    caught_by=("test_a_status_filter_with_type_card_answers_400",),
)
def card_statuses_listed(refused: bool, *, status: str | None, kind: str | None) -> bool:
    """GET /transactions with type=CARD and a card status (SETTLED, DECLINED, ...) answers
    200 with a list; payment statuses still answer 400"""
    return refused and not (kind == transactions_api.CARD and status in CARD_STATUSES)


@fault(
    "internal-account-card-capabilities-missing",
    at=internal_accounts_api.LISTED_BODY,
    clause="§2 InternalAccount: card capabilities",
    part="resources",
    caught_by=("test_an_account_funding_a_card_states_its_card_capabilities",),
)
def no_card_capabilities(body: dict[str, Any], *, account: InternalAccount) -> dict[str, Any]:
    """internal accounts listed by GET /customers/internal-accounts carry no cardCapabilities,
    even one funding a card"""
    return {key: value for key, value in body.items() if key != "cardCapabilities"}


@fault(
    "wallet-privacy-flag-everywhere",
    at=internal_accounts_api.LISTED_BODY,
    clause="§2 InternalAccount: only EMBEDDED_WALLET",
    part="resources",
    caught_by=("test_the_privacy_flag_appears_only_on_embedded_wallet_accounts",),
)
def privacy_flag_everywhere(body: dict[str, Any], *, account: InternalAccount) -> dict[str, Any]:
    """privateEnabled appears on every internal account in the list"""
    return {"privateEnabled": False, **body}


@fault(
    "listed-currency-decimals-off",
    at=transactions_api.LISTED_BODY,
    clause="§0 Conventions: each currency object carries decimals",
    part="endpoints",
    caught_by=("test_every_transaction_listed_matches_the_filters",),
)
def listed_decimals_off(body: dict[str, Any], *, transaction: Transaction) -> dict[str, Any]:
    """transactions listed by GET /transactions state their sentAmount's currency with one
    decimal place more than the same currency has on quotes and in events"""
    sent = body.get("sentAmount") or {}
    currency = sent.get("currency") or {}
    if not isinstance(currency.get("decimals"), int):
        return body
    shifted = {**currency, "decimals": currency["decimals"] + 1}
    return {**body, "sentAmount": {**sent, "currency": shifted}}


@fault(
    "listed-received-amount-short",
    at=transactions_api.LISTED_BODY,
    clause="§2 Transaction: the transaction carries the amounts its quote fixed",
    part="endpoints",
    # charged to FEES-FIXED-FOR-QUOTE-LIFE (the ledger's link of a transaction to its
    # quote): the filters test meets it on the way and is blocked
    caught_by=("test_executing_a_quote_moves_the_amounts_it_stated",),
)
def listed_received_short(body: dict[str, Any], *, transaction: Transaction) -> dict[str, Any]:
    """transactions listed by GET /transactions state a receivedAmount one unit below their
    quote's totalReceivingAmount"""
    received = body.get("receivedAmount") or {}
    if not isinstance(received.get("amount"), int):
        return body
    return {**body, "receivedAmount": {**received, "amount": received["amount"] - 1}}


# how many times each COMPLETED transaction was listed (the fault below alternates on it)
_COMPLETED_READS: dict[str, int] = {}


@fault(
    "completed-listed-as-processing-again",
    at=transactions_api.LISTED_BODY,
    clause="§3 Quote and transaction: PROCESSING, then COMPLETED",
    part="endpoints",
    caught_by=("test_every_transaction_listed_matches_the_filters",),
)
def completed_back_to_processing(
    body: dict[str, Any], *, transaction: Transaction
) -> dict[str, Any]:
    """a COMPLETED transaction is listed by GET /transactions as PROCESSING on every second
    read: a poll sees it complete, the next list shows it back in PROCESSING"""
    if body.get("status") != txns.COMPLETED:
        return body
    reads = _COMPLETED_READS[transaction.id] = _COMPLETED_READS.get(transaction.id, 0) + 1
    return body if reads % 2 else {**body, "status": txns.PROCESSING}


@fault(
    "executed-quote-lives-20-minutes",
    at=quotes_api.READ_BODY,
    clause="§8 Limits: a quote lives up to 15 minutes",
    part="transitions",
    caught_by=("test_immediate_execution_creates_and_executes_in_one_request",),
)
def state_a_20_minute_life_once_executed(body: dict[str, Any], *, quote: Any) -> dict[str, Any]:
    """a quote executed (immediatelyExecute included) states an expiresAt 20 minutes after its
    createdAt"""
    if body.get("status") in ("PENDING", "PENDING_AUTHORIZATION", "EXPIRED"):
        return body
    created = datetime.fromisoformat(str(body["createdAt"]).replace("Z", "+00:00"))
    later = created + timedelta(minutes=20)
    return {**body, "expiresAt": later.isoformat().replace("+00:00", "Z")}
