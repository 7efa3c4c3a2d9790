"""A platform's client judged by the reference (``conformance serve --check-clients DIR``):
a client that does everything right gets no finding; one with known mistakes gets exactly
those, each naming its clause and showing its request without the secrets."""

from __future__ import annotations

import base64
import json
import uuid
from typing import Any

import httpx

from tests.reference.customer_helpers import created, individual, png, upload
from tests.reference.money_helpers import approved
from tests.reference.wallet_client_helpers import (
    bundle_data,
    email_credential,
    new_key,
    pub_hex,
    seal,
    sign_hex,
    wallet,
)

from .conftest import ClientCheck

RULES = {
    "CLIENT-BASIC-CREDENTIALS",
    "CLIENT-REQUEST-BODY",
    "CLIENT-IDEMPOTENCY-KEY",
    "CLIENT-SIGNED-RETRY",
    "CLIENT-WALLET-SIGNATURE",
    "CLIENT-TEK-COMPRESSED",
    "CLIENT-DOCUMENT-UPLOAD",
}


def _rule_based_body(customer_id: str, destination: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": "RULE_BASED",
        "currency": "USD",
        "customerId": customer_id,
        "sweepRule": {"destinationAccountId": destination},
        **extra,
    }


def _otp_challenge(client: httpx.Client, enclave: str, tek_hex: str) -> tuple[str, str]:
    """A fresh EMAIL_OTP credential challenged: its id and a bundle carrying ``tek_hex``."""
    customer = created(client.post("/customers", json=individual("Wal Let", email="w@example.com")))
    credential = email_credential(client, customer["id"])
    challenge = client.post(f"/auth/credentials/{credential['id']}/challenge").json()
    target = bundle_data(challenge["otpEncryptionTargetBundle"], enclave)["targetPublic"]
    plaintext = json.dumps({"otp_code": "000000", "public_key": tek_hex}).encode()
    return credential["id"], json.dumps(seal(target, plaintext))


def test_a_client_that_does_everything_right_gets_no_finding(start_check) -> None:
    check: ClientCheck = start_check()
    client = check.client()
    holder = approved(client)  # customer, a document upload, a verification
    body = _rule_based_body(holder.id, holder.account_id("USD"))
    key = {"Idempotency-Key": f"k-{uuid.uuid4()}"}
    assert client.post("/internal-accounts", json=body, headers=key).status_code == 201
    assert client.post("/internal-accounts", json=body, headers=key).status_code == 200
    wallet(client, check.banner["wallet_enclave_public_key"])  # OTP login, signed retry

    checked = check.stop()

    assert checked.code == 0, checked.stderr
    assert checked.summary["verdict"] == "passed"
    assert checked.summary["findings"] == [] and checked.summary["advisories"] == []
    statuses = {r["id"]: r["status"] for r in checked.summary["requirements"]}
    assert statuses == dict.fromkeys(RULES, "passed")
    assert checked.junit.find("testsuite").get("failures") == "0"  # type: ignore[union-attr]


def test_a_client_with_known_mistakes_gets_exactly_those_findings(start_check) -> None:
    check: ClientCheck = start_check()
    client = check.client()
    enclave = check.banner["wallet_enclave_public_key"]
    # §5: Basic credentials without the colon between token id and secret
    no_colon = base64.b64encode(check.banner["client_id"].encode()).decode()
    client.get("/config", auth=None, headers={"Authorization": f"Basic {no_colon}"})
    # §4: two invalid fields in one body (and the platform's secret where no secret belongs)
    mistaken = {"customerType": "ROBOT", "birthDate": "1990-13-01"}
    client.post("/customers", json={**mistaken, "memo": check.banner["client_secret"]})
    # §8: an Idempotency-Key over 255 characters; §4: one key reused for another account
    holder = approved(client)
    body = _rule_based_body(holder.id, holder.account_id("USD"))
    client.post("/internal-accounts", json=body, headers={"Idempotency-Key": "k" * 256})
    key = {"Idempotency-Key": f"k-{uuid.uuid4()}"}
    assert client.post("/internal-accounts", json=body, headers=key).status_code == 201
    other = _rule_based_body(holder.id, holder.account_id("USD"), label="other")
    assert client.post("/internal-accounts", json=other, headers=key).status_code == 409
    # no key at all: strongly recommended, so an advisory and no finding
    assert client.post("/internal-accounts", json=body).status_code == 201
    # §2 Document: an identity document without its number, the file declared as a GIF
    upload(client, holder.id, content=png(), content_type="image/gif", documentNumber="")
    # §5 item 1: the TEK public key uncompressed in the OTP bundle
    tek = new_key()
    credential_id, bundle = _otp_challenge(client, enclave, pub_hex(tek, compressed=False))
    verify = f"/auth/credentials/{credential_id}/verify"
    assert client.post(verify, json={"encryptedOtpBundle": bundle}).status_code == 401
    # §5 item 4: a signature over another payload; then a retry without its Request-Id
    credential_id, bundle = _otp_challenge(client, enclave, pub_hex(tek, compressed=True))
    verify = f"/auth/credentials/{credential_id}/verify"
    first = client.post(verify, json={"encryptedOtpBundle": bundle})
    assert first.status_code == 202, first.text
    payload, request_id = first.json()["payloadToSign"], first.json()["requestId"]
    retry = {"json": {"encryptedOtpBundle": bundle}}
    wrong = {"Service-Wallet-Signature": sign_hex(tek, payload + " "), "Request-Id": request_id}
    assert client.post(verify, headers=wrong, **retry).status_code == 401
    unnamed = {"Service-Wallet-Signature": sign_hex(tek, payload)}
    assert client.post(verify, headers=unnamed, **retry).status_code == 401
    # §5 item 4: a "retry" of another body than the call the Request-Id answered
    named = {**unnamed, "Request-Id": request_id}
    altered = {"encryptedOtpBundle": bundle + " "}
    assert client.post(verify, headers=named, json=altered).status_code == 401

    checked = check.stop()

    assert checked.code == 1, checked.stderr
    assert checked.summary["verdict"] == "failed"
    verify_path = "/auth/credentials/{id}/verify"
    assert [(r, m, _templated(p)) for r, m, p in checked.findings()] == sorted(
        [
            ("CLIENT-BASIC-CREDENTIALS", "GET", "/config"),
            ("CLIENT-REQUEST-BODY", "POST", "/customers"),
            ("CLIENT-IDEMPOTENCY-KEY", "POST", "/internal-accounts"),
            ("CLIENT-IDEMPOTENCY-KEY", "POST", "/internal-accounts"),
            ("CLIENT-DOCUMENT-UPLOAD", "POST", "/documents"),
            ("CLIENT-TEK-COMPRESSED", "POST", verify_path),
            ("CLIENT-WALLET-SIGNATURE", "POST", verify_path),
            ("CLIENT-SIGNED-RETRY", "POST", verify_path),
            ("CLIENT-SIGNED-RETRY", "POST", verify_path),
        ]
    ), checked.summary["findings"]
    advised = [(a["nodeid"], a["message"][:11]) for a in checked.summary["advisories"]]
    assert advised == [("client-check::CLIENT-IDEMPOTENCY-KEY", "§4 Accounts")]
    messages = {f["rule"]: f["message"] for f in checked.summary["findings"]}
    assert all(f["message"].startswith("§") for f in checked.summary["findings"])
    assert "customerType" in messages["CLIENT-REQUEST-BODY"]
    assert "birthDate" in messages["CLIENT-REQUEST-BODY"]
    assert "documentNumber" in messages["CLIENT-DOCUMENT-UPLOAD"]
    assert "image/gif" in messages["CLIENT-DOCUMENT-UPLOAD"]
    failed = {case.get("name") for case in checked.junit.iter("testcase")
              if case.find("failure") is not None}  # fmt: skip
    assert failed == RULES
    secret = check.banner["client_secret"]
    for path in checked.folder.rglob("*"):
        assert not path.is_file() or secret not in path.read_text(errors="replace"), path


def _templated(path: str) -> str:
    """A wallet path with its credential id as the template's ``{id}``."""
    parts = path.split("/")
    if path.startswith("/auth/credentials/") and len(parts) > 3:
        parts[3] = "{id}"
    return "/".join(parts)
