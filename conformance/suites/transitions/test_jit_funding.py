"""§3 Quote and transaction, §4 Quotes rule 2 — a just-in-time quote executes by itself
when its payment arrives, never through ``POST /quotes/{quoteId}/execute``, and only when
the payment carries the instructions' exact ``reference``.

Each test pays a just-in-time quote of a new customer into that customer's own internal
account, whose balance shows whether the quote executed.
"""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.ground import hookspecs
from conformance.payments.transfer_flows import reference_of

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = clauses.QUOTE_AND_TRANSACTION_STATES
RULE = clauses.QUOTES_ENDPOINTS + " — rule 2"


def destination_balance(funding, jit):
    return funding.account_balances(jit.customer_id, jit.destination_id).available


@pytest.mark.requirement("FUNDING-JIT-AUTO-EXECUTE")
def test_a_just_in_time_quote_executes_when_paid_without_an_execute_call(
    funding, transaction_history, transfers
):
    jit = transfers.just_in_time("USD")
    transfers.send_ok(jit.quote_id, "USD")
    settled = transaction_history.settled(jit.customer_id, jit.transaction_id)
    check(
        settled.get("status") == "COMPLETED",
        CLAUSE,
        "a just-in-time quote whose payment arrived is executed automatically: its transaction "
        "settles (into the customer's own internal account) with no execute call",
        expected="COMPLETED",
        observed=(settled.get("status"), settled.get("failureReason")),
    )
    credited = destination_balance(funding, jit)
    check(
        credited == jit.quote.get("totalReceivingAmount"),
        CLAUSE,
        "the executed just-in-time quote delivers its totalReceivingAmount to the destination",
        expected=jit.quote.get("totalReceivingAmount"),
        observed=credited,
    )


@pytest.mark.requirement("FUNDING-JIT-NOT-EXECUTED-BY-ENDPOINT")
def test_the_execute_endpoint_does_not_execute_a_just_in_time_quote(
    funding, quotes, transaction_history, transfers, advisory
):
    """Every sign of execution the interface states is read, not one: the execute answer
    (§4: an executed quote is answered PROCESSING), the quote read back, its transaction
    (§3: PENDING then PROCESSING once executed) and both balances of the destination. A
    2xx answer that executes nothing is only an advisory."""
    jit = transfers.just_in_time("USD")
    response = quotes.execute(jit.quote_id)
    answered = response.json if 200 <= response.status < 300 and response.is_json else {}
    if 200 <= response.status < 300:
        advisory(f"{RULE}: execute on a just-in-time quote answered {response.status}")
    quote = transfers.quote_now(jit.quote_id)
    transaction = transaction_history.transaction(jit.customer_id, jit.transaction_id) or {}
    balances = funding.account_balances(jit.customer_id, jit.destination_id)
    executed = ("PROCESSING", "COMPLETED")
    observed = {
        "execute answer": (response.status, answered.get("status")),
        "quote read back": quote.get("status"),
        "transaction": transaction.get("status"),
        "destination balances (available, total)": (balances.available, balances.total),
    }
    check(
        answered.get("status") not in executed
        and quote.get("status") == "PENDING"
        and transaction.get("status") not in executed
        and (balances.available, balances.total) == (0, 0),
        RULE,
        "a just-in-time quote is never executed with the execute endpoint: after an execute "
        "call it is not answered as executed, still reads PENDING, its transaction has not "
        "started, and no money reached the destination",
        expected={
            "execute answer": "no 2xx with status PROCESSING or COMPLETED",
            "quote read back": "PENDING",
            "transaction": "PENDING (or not listed)",
            "destination balances (available, total)": (0, 0),
        },
        observed=observed,
        exchange=response.exchange,
    )


@pytest.mark.requirement("FUNDING-JIT-REFERENCE")
@needs_adapter_hook(hookspecs.pytest_conformance_pay_instructions)
def test_only_a_payment_with_the_exact_reference_executes_the_quote(
    funding, transaction_history, transfers
):
    jit = transfers.just_in_time("USD")
    reference = reference_of(jit.quote) or ""
    transfers.pay_instructions(jit.quote, reference + "X9", "USD")
    quote = transfers.quote_now(jit.quote_id)
    check(
        quote.get("status") == "PENDING" and destination_balance(funding, jit) == 0,
        RULE,
        "a payment whose reference differs from the instructions' does not execute the "
        "just-in-time quote",
        expected=("PENDING", 0),
        observed=(quote.get("status"), destination_balance(funding, jit)),
    )
    transfers.pay_instructions(jit.quote, reference, "USD")
    settled = transaction_history.settled(jit.customer_id, jit.transaction_id)
    check(
        settled.get("status") == "COMPLETED",
        RULE,
        "paying the instructions with their exact reference triggers execution",
        expected="COMPLETED",
        observed=(settled.get("status"), settled.get("failureReason")),
    )
