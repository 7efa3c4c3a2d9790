"""Wallet-signed operations (§5 item 4): further credentials, revocations, export, the
privacy flag and executes from an embedded wallet answer 202, complete only on a retry
signed by an active session's key with its own request id, and change nothing otherwise."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from .money_helpers import approved, external, fund, quote
from .reference_helpers import RunningSandbox, invalid_fields
from .wallet_client_helpers import (
    Wallet,
    key_from_scalar,
    new_key,
    open_bundle,
    pub_hex,
    retry_headers,
    sign_hex,
    signed,
    wallet,
    wallet_account,
)


@pytest.fixture
def enclave(sandbox: RunningSandbox) -> str:
    return str(sandbox.banner["wallet_enclave_public_key"])


def _reason(response: httpx.Response) -> str:
    assert response.status_code == 401, response.text
    return str(response.json()["reason"])


def _balance(client: httpx.Client, account_id: str, customer_id: str) -> int:
    accounts = client.get("/customers/internal-accounts", params={"customerId": customer_id}).json()
    [account] = [a for a in accounts["data"] if a["id"] == account_id]
    return int(account["availableBalance"]["amount"])


def test_a_further_credential_needs_a_signed_retry(client: httpx.Client, enclave: str) -> None:
    owner = wallet(client, enclave)
    body = {"customerId": owner.customer_id, "type": "EMAIL_OTP", "email": "second@example.com"}
    response = signed(client, "POST", "/auth/credentials", owner.key, body)
    assert response.status_code == 201, response.text
    assert response.json()["email"] == "second@example.com"


def test_the_payload_names_operation_body_and_customer(client: httpx.Client, enclave: str) -> None:
    owner = wallet(client, enclave)
    account = wallet_account(client, owner.customer_id)
    first = client.patch(f"/internal-accounts/{account['id']}", json={"privateEnabled": True})
    assert first.status_code == 202
    payload = json.loads(first.json()["payloadToSign"])
    assert payload["operation"] == f"PATCH /internal-accounts/{account['id']}"
    assert payload["customerId"] == owner.customer_id
    assert payload["requestId"] == first.json()["requestId"]
    assert len(payload["bodySha256"]) == 64


def test_privacy_flag_update(client: httpx.Client, enclave: str) -> None:
    owner = wallet(client, enclave)
    account = wallet_account(client, owner.customer_id)
    path = f"/internal-accounts/{account['id']}"
    response = signed(client, "PATCH", path, owner.key, {"privateEnabled": True})
    assert response.status_code == 200, response.text
    assert response.json()["privateEnabled"] is True
    assert wallet_account(client, owner.customer_id)["privateEnabled"] is True
    fiat = next(
        a
        for a in client.get(
            "/customers/internal-accounts", params={"customerId": owner.customer_id}
        ).json()["data"]
        if a["type"] == "INTERNAL_FIAT"
    )
    refused = client.patch(f"/internal-accounts/{fiat['id']}", json={"privateEnabled": True})
    assert refused.status_code == 409, refused.text  # the account's type: its state
    assert [e["field"] for e in refused.json()["details"]["errors"]] == ["privateEnabled"]
    assert invalid_fields(client.patch(path, json={"privateEnabled": "yes"})) == {"privateEnabled"}
    assert (
        client.patch(
            "/internal-accounts/InternalAccount:nope", json={"privateEnabled": True}
        ).status_code
        == 404
    )


def test_export_seals_the_wallet_key_to_the_target(client: httpx.Client, enclave: str) -> None:
    owner = wallet(client, enclave)
    account = wallet_account(client, owner.customer_id)
    target = new_key()
    path = f"/internal-accounts/{account['id']}/export"
    response = signed(client, "POST", path, owner.key, {"targetPublicKey": pub_hex(target)})
    assert response.status_code == 200, response.text
    exported = open_bundle(response.json()["exportBundle"], enclave, target)
    assert len(exported) == 32 and key_from_scalar(exported)
    # the key's form is judged first (400); whether the point is on the curve, which no
    # document can declare, only on the signed retry
    assert invalid_fields(client.post(path, json={"targetPublicKey": "02ff"})) == {
        "targetPublicKey"
    }
    off_curve = {"targetPublicKey": "02" + "ff" * 32}
    assert client.post(path, json=off_curve).status_code == 202
    bad = signed(client, "POST", path, owner.key, off_curve)
    assert invalid_fields(bad) == {"targetPublicKey"}


def _first(client: httpx.Client, method: str, path: str, body: Any = None) -> dict[str, Any]:
    response = client.request(method, path, json=body)
    assert response.status_code == 202, response.text
    answer: dict[str, Any] = response.json()
    return answer


def test_refused_retries_change_nothing(client: httpx.Client, enclave: str) -> None:
    owner = wallet(client, enclave)
    account = wallet_account(client, owner.customer_id)
    path = f"/internal-accounts/{account['id']}"
    body = {"privateEnabled": True}
    answer = _first(client, "PATCH", path, body)
    payload = answer["payloadToSign"]
    attempts = {
        "bad signature": retry_headers(answer, sign_hex(new_key(), payload)),
        "missing wallet signature": {"Request-Id": answer["requestId"]},
        "missing request id": {"Service-Wallet-Signature": sign_hex(owner.key, payload)},
        "unknown request id": {
            **retry_headers(answer, sign_hex(owner.key, payload)),
            "Request-Id": "nope",
        },
    }
    for reason, headers in attempts.items():
        assert _reason(client.patch(path, json=body, headers=headers)) == reason
    other_body = client.patch(
        path,
        json={"privateEnabled": False},
        headers=retry_headers(answer, sign_hex(owner.key, payload)),
    )
    assert _reason(other_body) == "request id of another operation"
    other = _first(
        client,
        "POST",
        f"/internal-accounts/{account['id']}/export",
        {"targetPublicKey": pub_hex(new_key())},
    )
    foreign = client.patch(
        path, json=body, headers=retry_headers(other, sign_hex(owner.key, other["payloadToSign"]))
    )
    assert _reason(foreign) == "request id of another operation"
    assert wallet_account(client, owner.customer_id)["privateEnabled"] is False


def test_another_customers_session_cannot_sign(client: httpx.Client, enclave: str) -> None:
    owner = wallet(client, enclave)
    stranger = wallet(client, enclave)
    account = wallet_account(client, owner.customer_id)
    path = f"/internal-accounts/{account['id']}"
    response = signed(client, "PATCH", path, stranger.key, {"privateEnabled": True})
    assert _reason(response) == "bad signature"


def test_the_legacy_literal_signature_is_accepted(client: httpx.Client, enclave: str) -> None:
    owner = wallet(client, enclave)
    account = wallet_account(client, owner.customer_id)
    path = f"/internal-accounts/{account['id']}"
    answer = _first(client, "PATCH", path, {"privateEnabled": True})
    response = client.patch(
        path,
        json={"privateEnabled": True},
        headers=retry_headers(answer, "sandbox-valid-signature"),
    )
    assert response.status_code == 200, response.text


def test_revoking_a_session_stops_its_key(client: httpx.Client, enclave: str) -> None:
    owner = wallet(client, enclave)
    revoked = signed(client, "DELETE", f"/auth/sessions/{owner.session['id']}", owner.key)
    assert revoked.status_code == 200 and revoked.json()["status"] == "REVOKED"
    account = wallet_account(client, owner.customer_id)
    path = f"/internal-accounts/{account['id']}"
    response = signed(client, "PATCH", path, owner.key, {"privateEnabled": True})
    assert _reason(response) == "session revoked"
    assert client.delete("/auth/sessions/Session:nope").status_code == 404


def test_revoking_a_credential_stops_it_and_its_sessions(
    client: httpx.Client, enclave: str
) -> None:
    owner = wallet(client, enclave)
    credential_id = owner.credential["id"]
    revoked = signed(client, "DELETE", f"/auth/credentials/{credential_id}", owner.key)
    assert revoked.status_code == 200 and revoked.json()["status"] == "REVOKED"
    assert (
        _reason(client.post(f"/auth/credentials/{credential_id}/challenge")) == "credential revoked"
    )
    account = wallet_account(client, owner.customer_id)
    path = f"/internal-accounts/{account['id']}"
    response = signed(client, "PATCH", path, owner.key, {"privateEnabled": True})
    assert _reason(response) == "credential revoked"


def _wallet_quote(client: httpx.Client, enclave: str) -> tuple[Wallet, str, dict[str, Any]]:
    holder = approved(client)
    owner = wallet(client, enclave, holder.id)
    account_id = wallet_account(client, holder.id)["id"]
    fund(client, account_id, 50_000_000)
    destination = external(client, holder.id, "WALLET")["id"]
    return owner, account_id, quote(client, account_id, destination, amount=10_000_000)


def test_execute_from_an_embedded_wallet_needs_the_signature(
    client: httpx.Client, enclave: str
) -> None:
    owner, account_id, created = _wallet_quote(client, enclave)
    path = f"/quotes/{created['id']}/execute"
    answer = _first(client, "POST", path)
    assert _balance(client, account_id, owner.customer_id) == 50_000_000
    bad = client.post(
        path, headers=retry_headers(answer, sign_hex(new_key(), answer["payloadToSign"]))
    )
    assert _reason(bad) == "bad signature"
    assert client.get(f"/quotes/{created['id']}").json()["status"] == "PENDING"
    assert _balance(client, account_id, owner.customer_id) == 50_000_000
    good = client.post(
        path, headers=retry_headers(answer, sign_hex(owner.key, answer["payloadToSign"]))
    )
    assert good.status_code == 200, good.text
    assert good.json()["status"] in ("PROCESSING", "COMPLETED")
    assert (
        _balance(client, account_id, owner.customer_id)
        == 50_000_000 - created["totalSendingAmount"]
    )


def test_immediate_execution_from_an_embedded_wallet_is_refused(
    client: httpx.Client, enclave: str
) -> None:
    holder = approved(client)
    wallet(client, enclave, holder.id)
    account_id = wallet_account(client, holder.id)["id"]
    fund(client, account_id, 50_000_000)
    destination = external(client, holder.id, "WALLET")["id"]
    body = {
        "source": {"sourceType": "ACCOUNT", "accountId": account_id},
        "destination": {"destinationType": "ACCOUNT", "accountId": destination},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": 1_000_000,
        "immediatelyExecute": True,
    }
    refused = client.post("/quotes", json=body)  # the source's type: its state
    assert refused.status_code == 409, refused.text
    assert [e["field"] for e in refused.json()["details"]["errors"]] == ["immediatelyExecute"]
    assert _balance(client, account_id, holder.id) == 50_000_000


def test_other_quotes_execute_without_a_signature(client: httpx.Client) -> None:
    holder = approved(client)
    fund(client, holder.account_id("USD"), 100_000)
    destination = external(client, holder.id)["id"]
    created = quote(client, holder.account_id("USD"), destination)
    assert client.post(f"/quotes/{created['id']}/execute").status_code == 200


def test_unsigned_first_calls_change_nothing(client: httpx.Client, enclave: str) -> None:
    owner = wallet(client, enclave)
    account = wallet_account(client, owner.customer_id)
    first_calls = [
        ("DELETE", f"/auth/sessions/{owner.session['id']}", None),
        ("DELETE", f"/auth/credentials/{owner.credential['id']}", None),
        (
            "POST",
            f"/internal-accounts/{account['id']}/export",
            {"targetPublicKey": pub_hex(new_key())},
        ),
        ("PATCH", f"/internal-accounts/{account['id']}", {"privateEnabled": True}),
    ]
    for method, path, body in first_calls:
        answer = _first(client, method, path, body)
        assert set(answer) == {"payloadToSign", "requestId"}
    assert wallet_account(client, owner.customer_id)["privateEnabled"] is False
    assert client.post(f"/auth/credentials/{owner.credential['id']}/challenge").status_code == 200
    # the session still signs: it was not revoked
    path = f"/internal-accounts/{account['id']}"
    response = signed(client, "PATCH", path, owner.key, {"privateEnabled": True})
    assert response.status_code == 200, response.text


def test_another_platform_cannot_touch_the_wallet(
    client: httpx.Client, second_client: httpx.Client, enclave: str
) -> None:
    owner = wallet(client, enclave)
    account = wallet_account(client, owner.customer_id)
    assert second_client.delete(f"/auth/sessions/{owner.session['id']}").status_code == 404
    assert second_client.delete(f"/auth/credentials/{owner.credential['id']}").status_code == 404
    patch = second_client.patch(
        f"/internal-accounts/{account['id']}", json={"privateEnabled": True}
    )
    assert patch.status_code == 404
