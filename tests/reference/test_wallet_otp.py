"""EMAIL_OTP and SMS_OTP credentials (§5 item 1, item 5): registration, the enclave-signed
target bundle, real HPKE, the sandbox code, the TEK-signed retry, and every refusal."""

from __future__ import annotations

import json

import httpx
import pytest

from .reference_helpers import RunningSandbox, invalid_fields
from .wallet_client_helpers import (
    bundle_data,
    customer,
    email_credential,
    key_from_scalar,
    new_key,
    open_bundle,
    otp_bundle,
    pub_hex,
    retry_headers,
    seal,
    sign_hex,
    wallet_account,
)


def _reason(response: httpx.Response) -> str:
    assert response.status_code == 401, response.text
    body = response.json()
    assert body["code"] == "UNAUTHORIZED"
    return str(body["reason"])


def _verify(client: httpx.Client, credential_id: str, bundle: str, **kwargs) -> httpx.Response:
    return client.post(
        f"/auth/credentials/{credential_id}/verify", json={"encryptedOtpBundle": bundle}, **kwargs
    )


@pytest.fixture
def enclave(sandbox: RunningSandbox) -> str:
    return str(sandbox.banner["wallet_enclave_public_key"])


def test_the_start_up_line_publishes_the_wallet_settings(sandbox: RunningSandbox) -> None:
    banner = sandbox.banner
    assert banner["wallet_rp_id"] == "wallet.sandbox.gpsi.test"
    assert banner["wallet_origin"] == "https://wallet.sandbox.gpsi.test"
    assert "https://accounts.google.com" in banner["wallet_oidc_issuers"]
    assert len(banner["wallet_enclave_public_key"]) == 130


def test_first_credential_is_registered_and_opens_an_embedded_wallet(client: httpx.Client) -> None:
    customer_id = customer(client)
    credential = email_credential(client, customer_id)
    assert credential["id"].startswith("Credential:")
    assert (credential["customerId"], credential["type"], credential["status"]) == (
        customer_id,
        "EMAIL_OTP",
        "ACTIVE",
    )
    account = wallet_account(client, customer_id)
    assert (account["currency"], account["status"], account["privateEnabled"]) == (
        "USDC",
        "ACTIVE",
        False,
    )
    others = client.get("/customers/internal-accounts", params={"customerId": customer_id})
    assert all(
        "privateEnabled" not in a for a in others.json()["data"] if a["type"] != "EMBEDDED_WALLET"
    )


def test_registration_lists_every_invalid_field(client: httpx.Client) -> None:
    response = client.post("/auth/credentials", json={"type": "NOPE"})
    assert invalid_fields(response) == {"customerId", "type"}
    response = client.post(
        "/auth/credentials", json={"customerId": 5, "type": "EMAIL_OTP", "email": "x"}
    )
    assert invalid_fields(response) == {"customerId", "email"}
    unknown = client.post(
        "/auth/credentials",
        json={"customerId": "Customer:nope", "type": "EMAIL_OTP", "email": "a@b.co"},
    )
    assert unknown.status_code == 404


def test_another_platforms_credential_is_not_found(
    client: httpx.Client, second_client: httpx.Client
) -> None:
    credential = email_credential(client, customer(client))
    response = second_client.post(f"/auth/credentials/{credential['id']}/challenge")
    assert response.status_code == 404


def test_email_otp_login_with_the_sandbox_code(client: httpx.Client, enclave: str) -> None:
    credential = email_credential(client, customer(client))
    tek = new_key()
    challenge, bundle = otp_bundle(client, credential["id"], enclave, tek)
    data = bundle_data(challenge["otpEncryptionTargetBundle"], enclave)
    assert data["credentialId"] == credential["id"] and len(data["targetPublic"]) == 130
    first = _verify(
        client, credential["id"], bundle, headers={"Request-Id": challenge["requestId"]}
    )
    assert first.status_code == 202, first.text
    answer = first.json()
    payload = json.loads(answer["payloadToSign"])
    assert payload["requestId"] == answer["requestId"]
    retry = _verify(
        client,
        credential["id"],
        bundle,
        headers=retry_headers(answer, sign_hex(tek, answer["payloadToSign"])),
    )
    assert retry.status_code == 200, retry.text
    session = retry.json()["session"]
    assert session["id"].startswith("Session:") and session["status"] == "ACTIVE"
    assert session["publicKey"] == pub_hex(tek, compressed=True)  # EMAIL_OTP: TEK = session key


def test_sms_otp_login_returns_a_session_key_sealed_to_the_tek(
    client: httpx.Client, enclave: str
) -> None:
    customer_id = customer(client)
    body = {"customerId": customer_id, "type": "SMS_OTP", "phoneNumber": "+14155550100"}
    credential = client.post("/auth/credentials", json=body).json()
    assert credential["type"] == "SMS_OTP"
    tek = new_key()
    _, bundle = otp_bundle(client, credential["id"], enclave, tek)
    answer = _verify(client, credential["id"], bundle).json()
    retry = _verify(
        client,
        credential["id"],
        bundle,
        headers=retry_headers(answer, sign_hex(tek, answer["payloadToSign"])),
    )
    assert retry.status_code == 200, retry.text
    key = key_from_scalar(open_bundle(retry.json()["encryptedSessionSigningKey"], enclave, tek))
    assert pub_hex(key) == retry.json()["session"]["publicKey"]


def test_a_wrong_code_is_refused(client: httpx.Client, enclave: str) -> None:
    credential = email_credential(client, customer(client))
    _, bundle = otp_bundle(client, credential["id"], enclave, new_key(), code="123456")
    assert _reason(_verify(client, credential["id"], bundle)) == "Invalid OTP code"


def test_a_tampered_ciphertext_is_refused(client: httpx.Client, enclave: str) -> None:
    credential = email_credential(client, customer(client))
    _, bundle = otp_bundle(client, credential["id"], enclave, new_key())
    sealed = json.loads(bundle)
    sealed["ciphertext"] = sealed["ciphertext"][:-2] + (
        "00" if sealed["ciphertext"][-2:] != "00" else "01"
    )
    assert _reason(_verify(client, credential["id"], json.dumps(sealed))) == "decryption failed"


def test_a_bundle_sealed_to_another_key_is_refused(client: httpx.Client, enclave: str) -> None:
    credential = email_credential(client, customer(client))
    otp_bundle(client, credential["id"], enclave, new_key())
    plaintext = json.dumps({"otp_code": "000000", "public_key": pub_hex(new_key(), True)}).encode()
    bundle = json.dumps(seal(pub_hex(new_key()), plaintext))
    assert _reason(_verify(client, credential["id"], bundle)) == "decryption failed"


@pytest.mark.parametrize("encapped", ["04" + "00" * 64, "02" + "11" * 32, "abcd"])
def test_a_malformed_encapsulated_key_is_a_401_not_a_500(
    client: httpx.Client, enclave: str, encapped: str
) -> None:
    credential = email_credential(client, customer(client))
    otp_bundle(client, credential["id"], enclave, new_key())
    bundle = json.dumps({"encappedPublic": encapped, "ciphertext": "00" * 40})
    assert _reason(_verify(client, credential["id"], bundle)) == "decryption failed"


def test_an_uncompressed_tek_key_is_refused(client: httpx.Client, enclave: str) -> None:
    credential = email_credential(client, customer(client))
    _, bundle = otp_bundle(client, credential["id"], enclave, new_key(), compressed=False)
    assert _reason(_verify(client, credential["id"], bundle)) == "TEK key not compressed"


@pytest.mark.parametrize("bundle", [None, "", "not json", json.dumps({"encappedPublic": "zz"}), 5])
def test_a_malformed_bundle_is_invalid_input(client: httpx.Client, enclave: str, bundle) -> None:
    credential = email_credential(client, customer(client))
    otp_bundle(client, credential["id"], enclave, new_key())
    assert invalid_fields(_verify(client, credential["id"], bundle)) == {"encryptedOtpBundle"}


def test_the_retry_must_be_signed_by_the_tek_key(client: httpx.Client, enclave: str) -> None:
    credential = email_credential(client, customer(client))
    tek = new_key()
    _, bundle = otp_bundle(client, credential["id"], enclave, tek)
    answer = _verify(client, credential["id"], bundle).json()
    payload = answer["payloadToSign"]
    other = _verify(
        client,
        credential["id"],
        bundle,
        headers=retry_headers(answer, sign_hex(new_key(), payload)),
    )
    assert _reason(other) == "bad signature"
    wrong_bytes = _verify(
        client,
        credential["id"],
        bundle,
        headers=retry_headers(answer, sign_hex(tek, payload + " ")),
    )
    assert _reason(wrong_bytes) == "bad signature"
    missing = _verify(
        client,
        credential["id"],
        bundle,
        headers={"Request-Id": answer["requestId"], "Service-Wallet-Signature": ""},
    )
    assert response_reason_in(
        missing, {"missing wallet signature", "unknown request id", "challenge already used"}
    )
    good = _verify(
        client, credential["id"], bundle, headers=retry_headers(answer, sign_hex(tek, payload))
    )
    assert good.status_code == 200, good.text
    again = _verify(
        client, credential["id"], bundle, headers=retry_headers(answer, sign_hex(tek, payload))
    )
    assert _reason(again) == "request id already used"


def response_reason_in(response: httpx.Response, reasons: set[str]) -> bool:
    return _reason(response) in reasons


def test_an_unknown_credential_is_not_found(client: httpx.Client) -> None:
    assert client.post("/auth/credentials/Credential:nope/challenge").status_code == 404
    assert client.post("/auth/credentials/Credential:nope/verify", json={}).status_code == 404


def test_the_enclave_key_survives_a_restart(launch, tmp_path) -> None:
    db = tmp_path / "wallet.sqlite"
    first = launch(db=db)
    key = first.banner["wallet_enclave_public_key"]
    first.stop()
    assert launch(db=db).banner["wallet_enclave_public_key"] == key
