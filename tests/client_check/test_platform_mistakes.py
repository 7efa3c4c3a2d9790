"""More of a platform client's habits, judged by ``conformance serve --check-clients``: the
signed retry that carries its Request-Id but no signature, the client secret sent as a
Bearer token, the wallet request shapes (registration, challenge, verify, export), a raw
``r || s`` wallet signature (§5 names no encoding), a field listed once with the count the
sandbox's own 400 gives, and one check per report folder."""

from __future__ import annotations

import base64
import subprocess
import sys
from typing import Any

import httpx
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from tests.reference.customer_helpers import business, business_info
from tests.reference.wallet_client_helpers import new_key, pub_hex, wallet, wallet_account

from .conftest import ClientCheck


def _raw_signature(key: ec.EllipticCurvePrivateKey, payload: str) -> str:
    """A wallet signature as WebCrypto gives it: hex of r || s, 32 bytes each."""
    r, s = decode_dss_signature(key.sign(payload.encode(), ec.ECDSA(hashes.SHA256())))
    return (r.to_bytes(32, "big") + s.to_bytes(32, "big")).hex()


def _export(client: httpx.Client, account_id: str, key: ec.EllipticCurvePrivateKey) -> Any:
    """The wallet export, its retry signed raw r || s."""
    path = f"/internal-accounts/{account_id}/export"
    body = {"targetPublicKey": pub_hex(new_key(), compressed=True)}
    first = client.post(path, json=body)
    assert first.status_code == 202, first.text
    challenge = first.json()
    headers = {
        "Service-Wallet-Signature": _raw_signature(key, challenge["payloadToSign"]),
        "Request-Id": challenge["requestId"],
    }
    return client.post(path, json=body, headers=headers)


def test_raw_signatures_and_an_otp_challenge_without_a_body_get_no_finding(start_check) -> None:
    check: ClientCheck = start_check()
    client = check.client()
    held = wallet(client, check.banner["wallet_enclave_public_key"])  # OTP login
    account = wallet_account(client, held.customer_id)
    exported = _export(client, account["id"], held.key)
    assert exported.status_code == 200, exported.text
    assert client.post(f"/auth/credentials/{held.credential['id']}/challenge").status_code == 200

    checked = check.stop()

    assert checked.code == 0, checked.stderr
    assert checked.summary["findings"] == [], checked.summary["findings"]
    statuses = {r["id"]: r["status"] for r in checked.summary["requirements"]}
    assert statuses["CLIENT-WALLET-SIGNATURE"] == "passed"
    assert statuses["CLIENT-REQUEST-BODY"] == "passed"


def _errors(response: httpx.Response) -> set[str]:
    """The fields a 400 names."""
    assert response.status_code == 400, response.text
    details = response.json().get("details") or {}
    return {str(e.get("field")) for e in details.get("errors", [])}


def test_platform_client_mistakes_each_get_a_finding(start_check) -> None:
    check: ClientCheck = start_check()
    client = check.client()
    held = wallet(client, check.banner["wallet_enclave_public_key"])
    # §5 item 4: the retry of a 202 with its Request-Id and no signature (the sandbox: 401)
    session = f"/auth/sessions/{held.session['id']}"
    first = client.delete(session)
    assert first.status_code == 202, first.text
    retry = client.delete(session, headers={"Request-Id": first.json()["requestId"]})
    assert retry.status_code == 401, retry.text
    # §5: the API client secret as a Bearer token on a platform endpoint
    secret = check.banner["client_secret"]
    assert (
        client.get("/config", auth=None, headers={"Authorization": f"Bearer {secret}"}).status_code
        == 401
    )
    pair = f"{check.banner['client_id']}:{secret}".encode()
    as_basic = {"Authorization": f"Bearer {base64.b64encode(pair).decode()}"}
    assert client.get("/config", auth=None, headers=as_basic).status_code == 401
    # §4: a credential of a type the interface does not name; OAUTH without its oidcToken
    register = {"customerId": held.customer_id, "type": "PASSWORD"}
    assert client.post("/auth/credentials", json=register).status_code in (400, 409)
    oauth = {"customerId": held.customer_id, "type": "OAUTH"}
    assert client.post("/auth/credentials", json=oauth).status_code in (400, 409)
    # §4: a business without its legal name, whose incorporation date two branches of the
    # schema refuse: each field once, as many as the sandbox's own 400 names
    info = business_info(incorporatedOn="2019-13-01")
    del info["legalName"]
    body = business(businessInfo=info)
    refused = client.post("/customers", json=body)
    sandbox_fields = _errors(refused)

    checked = check.stop()

    assert checked.code == 1, checked.stderr
    found = {(f["rule"], f["method"], f["path"].split("/")[1]) for f in checked.summary["findings"]}
    assert found == {
        ("CLIENT-SIGNED-RETRY", "DELETE", "auth"),
        ("CLIENT-BASIC-CREDENTIALS", "GET", "config"),
        ("CLIENT-REQUEST-BODY", "POST", "auth"),
        ("CLIENT-REQUEST-BODY", "POST", "customers"),
    }, checked.summary["findings"]
    by_path = {(f["rule"], f["path"]): f["message"] for f in checked.summary["findings"]}
    bearers = [f for f in checked.summary["findings"] if f["path"] == "/config"]
    assert len(bearers) == 2 and all("Bearer" in f["message"] for f in bearers)
    assert "no Service-Wallet-Signature" in by_path[("CLIENT-SIGNED-RETRY", session)]
    registrations = [f["message"] for f in checked.summary["findings"]
                     if f["path"] == "/auth/credentials"]  # fmt: skip
    assert len(registrations) == 2
    assert any("oidcToken" in m for m in registrations)
    assert any("type" in m and "PASSWORD" in m for m in registrations)
    customer = by_path[("CLIENT-REQUEST-BODY", "/customers")]
    assert customer.count("businessInfo.incorporatedOn:") == 1, customer
    count = len(sandbox_fields)
    assert count == 2, sandbox_fields
    assert f"{count} invalid field{'s' if count > 1 else ''}:" in customer, (
        customer,
        sandbox_fields,
    )
    for path in checked.folder.rglob("*"):
        assert not path.is_file() or secret not in path.read_text(errors="replace"), path


def test_a_second_check_on_the_same_folder_refuses_to_start(start_check) -> None:
    check: ClientCheck = start_check()
    client = check.client()
    assert client.get("/config").status_code == 200
    before = (check.folder / "summary.json").read_bytes()
    second = subprocess.run(
        [sys.executable, "-m", "conformance.run.cli", "serve", "--port", "0",
         "--check-clients", str(check.folder)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert second.returncode == 2, second.stderr
    assert "another client check is running on this folder" in second.stderr
    assert second.stdout == ""  # no sandbox was started
    assert (check.folder / "summary.json").read_bytes() == before

    checked = check.stop()

    assert checked.code == 0, checked.stderr
    assert checked.summary["verdict"] == "passed"
