"""§3 Quote and transaction — a pull source (an external account with direct pull) is
executed like a prefunded one: with ``immediatelyExecute`` the quote is returned
``COMPLETED``; through ``execute`` it is ``PROCESSING`` with its ``transactionId``. The
pulled money reaches the customer's internal account.

Which external accounts have direct pull is not shown: a target that refuses a US bank
account as a source makes the test skip.
"""

from __future__ import annotations

import pytest

from conformance.failures import check
from conformance.quote_bodies import quote_body

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = "§3 Quote and transaction"
AMOUNT = 15_000


@pytest.mark.requirement("QUOTE-IMMEDIATE-EXECUTE-COMPLETED", "QUOTE-EXECUTE-PROCESSING")
def test_a_pull_source_executes_like_a_prefunded_one(money, config_lock, advisory):
    customer = money.approved_customer(("USD",))
    destination = money.active_account(customer["id"], "USD")["id"]
    pulled = money.external_account(customer["id"], "USD")["id"]
    body = quote_body(pulled, destination, amount=AMOUNT, immediatelyExecute=True)
    response = money.create_quote(body)
    if response.status == 400:
        pytest.skip(
            "the target refused a US bank account as a pull source (which external accounts "
            f"have direct pull is not shown): {response.content[:200]!r}"
        )
    immediate = response.json if 200 <= response.status < 300 else {}
    check(
        immediate.get("status") == "COMPLETED",
        CLAUSE,
        "POST /quotes with immediatelyExecute and a pullable source creates and executes the "
        "quote in one request and returns it COMPLETED",
        expected="COMPLETED",
        observed=(response.status, immediate.get("status")),
        exchange=response.exchange,
    )
    quote = money.quote(quote_body(pulled, destination, amount=AMOUNT))
    executed = money.execute_ok(quote["id"])
    check(
        executed.get("status") in ("PROCESSING", "COMPLETED")
        and executed.get("transactionId") == quote.get("transactionId"),
        CLAUSE,
        "executing a PENDING pull-source quote returns it PROCESSING with the transactionId it "
        "carried at creation",
        expected=("PROCESSING", quote.get("transactionId")),
        observed=(executed.get("status"), executed.get("transactionId")),
    )
    if executed.get("status") == "COMPLETED":
        advisory(f"{CLAUSE}: execute answered the pull-source quote COMPLETED")
    for transaction_id in (immediate.get("transactionId"), quote.get("transactionId")):
        money.completed(customer["id"], str(transaction_id))
    credited = money.account_balances(customer["id"], destination).available
    expected = int(immediate.get("totalReceivingAmount") or 0) + int(
        quote.get("totalReceivingAmount") or 0
    )
    check(
        credited == expected,
        CLAUSE,
        "the money pulled from the external source reaches the internal destination",
        expected=expected,
        observed=credited,
    )
