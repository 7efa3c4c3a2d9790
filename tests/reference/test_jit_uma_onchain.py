"""Just-in-time quotes and ``POST /sandbox/send``, reference-matched deposits, pullable
sources, UMA destinations, on-chain hashes and the deprecated ``/transfer-in`` and
``/transfer-out``."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import httpx

from reference import adapter

from .customer_helpers import created
from .money_helpers import (
    approved,
    available,
    error_code,
    external,
    funded,
    quote_body,
    transaction,
)
from .reference_helpers import RunningSandbox


def jit_body(customer_id: str, destination: str, currency: str = "USD", **extra: Any) -> dict:
    return {
        "source": {
            "sourceType": "REALTIME_FUNDING",
            "customerId": customer_id,
            "currency": currency,
        },
        "destination": {"destinationType": "ACCOUNT", "accountId": destination},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": 10_000,
        **extra,
    }


def uma_body(source: str, address: str) -> dict[str, Any]:
    return {
        "source": {"sourceType": "ACCOUNT", "accountId": source},
        "destination": {"destinationType": "UMA_ADDRESS", "umaAddress": address},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": 10_000,
    }


def test_jit_quote_has_instructions_and_is_not_executable(client: httpx.Client) -> None:
    holder = approved(client)
    quote = created(client.post("/quotes", json=jit_body(holder.id, holder.account_id())))
    assert quote["status"] == "PENDING"
    assert quote["source"] == {
        "sourceType": "REALTIME_FUNDING",
        "customerId": holder.id,
        "currency": "USD",
    }
    info = quote["paymentInstructions"][0]["accountOrWalletInfo"]
    assert info["accountType"] == "US_ACCOUNT" and info["reference"].startswith("JIT-")
    refused = client.post(f"/quotes/{quote['id']}/execute")
    assert error_code(refused, 409) == "QUOTE_NOT_EXECUTABLE"
    assert client.get(f"/quotes/{quote['id']}").json()["status"] == "PENDING"


def test_jit_instructions_by_currency(client: httpx.Client) -> None:
    holder = approved(client)
    kinds = {}
    for code in ("USDC", "BTC", "EUR"):
        body = jit_body(
            holder.id, holder.account_id(), currency=code, lockedCurrencySide="RECEIVING"
        )
        quote = created(client.post("/quotes", json=body))
        kinds[code] = quote["paymentInstructions"][0]["accountOrWalletInfo"]["accountType"]
    assert kinds == {"USDC": "WALLET", "BTC": "BITCOIN_L1", "EUR": "IBAN_ACCOUNT"}


def test_immediately_execute_with_jit_source_is_invalid(client: httpx.Client) -> None:
    holder = approved(client)
    body = jit_body(holder.id, holder.account_id(), immediatelyExecute=True)
    response = client.post("/quotes", json=body)
    assert error_code(response, 400) == "INVALID_INPUT"
    fields = [e["field"] for e in response.json()["details"]["errors"]]
    assert "immediatelyExecute" in fields


def test_sandbox_send_executes_with_default_amount(client: httpx.Client) -> None:
    holder = approved(client)
    quote = created(client.post("/quotes", json=jit_body(holder.id, holder.account_id())))
    wrong = client.post("/sandbox/send", json={"quoteId": quote["id"], "currencyCode": "EUR"})
    assert error_code(wrong, 409) == "CONFLICT"  # the quote's state refuses it
    sent = client.post("/sandbox/send", json={"quoteId": quote["id"], "currencyCode": "USD"})
    assert sent.status_code == 200, sent.text
    assert sent.json()["id"] == quote["transactionId"]
    assert sent.json()["status"] == "COMPLETED"
    assert available(client, holder.id) == quote["totalReceivingAmount"]
    again = client.post("/sandbox/send", json={"quoteId": quote["id"], "currencyCode": "USD"})
    assert error_code(again, 409) == "QUOTE_ALREADY_EXECUTED"


def test_deposit_with_wrong_reference_is_not_matched(client: httpx.Client) -> None:
    holder = approved(client)
    quote = created(client.post("/quotes", json=jit_body(holder.id, holder.account_id())))
    reference = quote["paymentInstructions"][0]["accountOrWalletInfo"]["reference"]
    path = "/sandbox/realtime-funding/payments"
    body = {"quoteId": quote["id"], "currencyCode": "USD", "reference": "JIT-WRONG"}
    assert client.post(path, json=body).json()["matched"] is False
    assert client.get(f"/quotes/{quote['id']}").json()["status"] == "PENDING"
    body["reference"] = reference
    answer = client.post(path, json=body).json()
    assert answer["matched"] is True and answer["transaction"]["status"] == "COMPLETED"


def test_pull_source_executes_and_immediately(client: httpx.Client) -> None:
    holder = approved(client)
    pulled = external(client, holder.id, "US_ACCOUNT")["id"]
    body = quote_body(pulled, holder.account_id(), immediatelyExecute=True)
    quote = created(client.post("/quotes", json=body))
    assert quote["status"] == "COMPLETED"
    assert available(client, holder.id) == 10_000
    wallet = external(client, holder.id, "WALLET")["id"]
    response = client.post("/quotes", json=quote_body(wallet, holder.account_id("USDC")))
    assert error_code(response, 409) == "CONFLICT"  # the account's type: not pullable


def test_pull_source_ending_in_005_times_out(client: httpx.Client) -> None:
    holder = approved(client)
    pulled = external(client, holder.id, "US_ACCOUNT", suffix="005")["id"]
    quote = created(client.post("/quotes", json=quote_body(pulled, holder.account_id())))
    client.post(f"/quotes/{quote['id']}/execute").raise_for_status()
    assert transaction(client, quote["transactionId"])["status"] == "PROCESSING"
    assert available(client, holder.id) == 0


def test_uma_destination_settles_with_hash_and_scenario(client: httpx.Client) -> None:
    holder = funded(client)
    body = uma_body(holder.account_id(), "$bob@vasp.example")
    quote = created(client.post("/quotes", json=body))
    assert quote["destination"] == {
        "destinationType": "UMA_ADDRESS",
        "umaAddress": "$bob@vasp.example",
    }
    client.post(f"/quotes/{quote['id']}/execute").raise_for_status()
    settled = transaction(client, quote["transactionId"])
    assert settled["status"] == "COMPLETED"
    assert settled["reconciliationInstructions"]["transactionHash"].startswith("0x")
    slow = created(client.post("/quotes", json=uma_body(holder.account_id(), "$bob005@v.example")))
    client.post(f"/quotes/{slow['id']}/execute").raise_for_status()
    assert transaction(client, slow["transactionId"])["status"] == "PROCESSING"


def test_wallet_payout_carries_onchain_transaction(client: httpx.Client) -> None:
    holder = funded(client)
    wallet = external(client, holder.id, "WALLET")["id"]
    quote = created(client.post("/quotes", json=quote_body(holder.account_id(), wallet)))
    client.post(f"/quotes/{quote['id']}/execute").raise_for_status()
    settled = transaction(client, quote["transactionId"])
    chain = settled["destination"]["onChainTransaction"]
    assert chain["network"] == "BASE"
    assert settled["reconciliationInstructions"]["transactionHash"] == chain["transactionHash"]


def test_deprecated_transfers_move_money(client: httpx.Client) -> None:
    holder = funded(client, 100_000)
    outside = external(client, holder.id, "US_ACCOUNT")["id"]
    body = {"source": {"accountId": holder.account_id()}, "destination": {"accountId": outside}}
    out = client.post("/transfer-out", json={**body, "amount": 30_000})
    assert out.status_code == 201, out.text
    assert out.json()["status"] == "COMPLETED"
    assert available(client, holder.id) == 70_000
    back = {"source": {"accountId": outside}, "destination": {"accountId": holder.account_id()}}
    into = client.post("/transfer-in", json={**back, "amount": 5_000})
    assert into.status_code == 201, into.text
    assert available(client, holder.id) == 75_000
    wrong = client.post("/transfer-in", json={**body, "amount": 5_000})
    assert error_code(wrong, 409) == "CONFLICT"  # an internal source: the account's kind


def test_uma_amount_bounds_follow_supported_currencies(client: httpx.Client) -> None:
    holder = funded(client)
    entries = client.get("/config").json()["supportedCurrencies"]
    for entry in entries:
        if entry["currencyCode"] == "USD":
            entry.update(minAmount=1_000, maxAmount=50_000)
    patch = [{k: v for k, v in e.items() if k != "providerRequiredCustomerFields"} for e in entries]
    assert client.patch("/config", json={"supportedCurrencies": patch}).status_code == 200
    body = uma_body(holder.account_id(), "$bob@vasp.example")
    body["lockedCurrencyAmount"] = 50_001  # outside the config's range: its state, 409
    assert error_code(client.post("/quotes", json=body), 409) == "CONFLICT"
    body["lockedCurrencyAmount"] = 999
    assert error_code(client.post("/quotes", json=body), 409) == "CONFLICT"
    body["lockedCurrencyAmount"] = 50_000
    created(client.post("/quotes", json=body))


def test_incoming_uma_payment_creates_an_incoming_transaction(client: httpx.Client) -> None:
    holder = approved(client)
    body = {"accountId": holder.account_id(), "amount": 4_200}
    response = client.post("/sandbox/uma/incoming-payments", json=body)
    incoming = created(response)
    assert (incoming["type"], incoming["direction"]) == ("INCOMING", "CREDIT")
    assert incoming["source"]["sourceType"] == "UMA_ADDRESS"
    assert transaction(client, incoming["id"])["status"] == "COMPLETED"
    assert available(client, holder.id) == 4_200


def test_adapter_hooks_pay_instructions_and_transfer_body(
    sandbox: RunningSandbox, client: httpx.Client
) -> None:
    token_id, secret = sandbox.credentials()
    target = SimpleNamespace(base_url=sandbox.base_url, client_id=token_id, client_secret=secret)
    holder = approved(client)
    quote = created(client.post("/quotes", json=jit_body(holder.id, holder.account_id())))
    reference = quote["paymentInstructions"][0]["accountOrWalletInfo"]["reference"]
    pay = adapter.pytest_conformance_pay_instructions
    amount = quote["totalSendingAmount"]
    assert pay(target, quote["id"], "WRONG", "USD", amount)["matched"] is False
    assert pay(target, quote["id"], reference, "USD", amount)["matched"] is True
    body = adapter.pytest_conformance_transfer_body(target, "out", "a", "b", 5, "USD")
    assert body == {"source": {"accountId": "a"}, "destination": {"accountId": "b"}, "amount": 5}
    incoming = adapter.pytest_conformance_simulate_incoming_uma_payment(
        target, holder.account_id(), 700, "USD"
    )
    assert incoming["receivedAmount"]["amount"] == 700
