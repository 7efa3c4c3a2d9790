"""Checks for the fault modes of ``reference/faults/wallet.py``: the embedded wallet's
authentication; ``test_faults`` adds them to its ``CHECKS``."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import httpx

from .money_helpers import approved, external, fund, quote
from .reference_helpers import FaultChecks, RunningSandbox, WebhookReceiver
from .test_wallet_passkeys import challenge as passkey_challenge
from .test_wallet_passkeys import passkey
from .test_wallet_passkeys import verify as passkey_verify
from .wallet_client_helpers import (
    claims,
    customer,
    email_credential,
    jwt,
    new_key,
    nonce,
    otp_bundle,
    pub_hex,
    retry_headers,
    seal,
    sign_hex,
    signed,
    wallet,
    wallet_account,
)

WALLET_CHECKS = FaultChecks()
check = WALLET_CHECKS.add


def _enclave(sandbox: RunningSandbox) -> str:
    return str(sandbox.banner["wallet_enclave_public_key"])


def _otp_verify(client: httpx.Client, credential_id: str, bundle: str) -> httpx.Response:
    return client.post(
        f"/auth/credentials/{credential_id}/verify", json={"encryptedOtpBundle": bundle}
    )


def _otp_first_call(sandbox: RunningSandbox, **kwargs: object) -> int:
    with sandbox.client() as client:
        credential = email_credential(client, customer(client))
        _, bundle = otp_bundle(client, credential["id"], _enclave(sandbox), new_key(), **kwargs)  # type: ignore[arg-type]
        return _otp_verify(client, credential["id"], bundle).status_code


def _patch_with(
    client: httpx.Client, sandbox: RunningSandbox, sign: Callable[..., dict[str, str]]
) -> int:
    owner = wallet(client, _enclave(sandbox))
    path = f"/internal-accounts/{wallet_account(client, owner.customer_id)['id']}"
    first = client.patch(path, json={"privateEnabled": True}).json()
    headers = sign(client, owner, first)
    return client.patch(path, json={"privateEnabled": True}, headers=headers).status_code


def _assertion_status(sandbox: RunningSandbox, **change: object) -> int:
    with sandbox.client() as client:
        key = passkey(client)
        answer = passkey_challenge(client, key, new_key())
        target = change.pop("challenge", answer["challenge"])
        assertion = key.authenticator.assertion(str(target), **change)  # type: ignore[arg-type]
        return passkey_verify(client, key, answer, assertion).status_code


def _register_oauth(client: httpx.Client, token: str) -> httpx.Response:
    body = {"customerId": customer(client), "type": "OAUTH", "oidcToken": token}
    return client.post("/auth/credentials", json=body)


def _oauth_verify(sandbox: RunningSandbox, sub: str, nonce_key: str | None) -> int:
    with sandbox.client() as client:
        credential = _register_oauth(client, jwt(claims("alice"))).json()
        key_hex = pub_hex(new_key())
        token = jwt(claims(sub, nonce=nonce(nonce_key or key_hex)))
        body = {"oidcToken": token, "clientPublicKey": key_hex}
        return client.post(f"/auth/credentials/{credential['id']}/verify", json=body).status_code


@check("wallet-otp-any-code")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    assert _otp_first_call(sandbox, code="123456") == 202


@check("wallet-otp-uncompressed-ok")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    assert _otp_first_call(sandbox, compressed=False) == 202


@check("wallet-otp-no-hpke")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        credential = email_credential(client, customer(client))
        otp_bundle(client, credential["id"], _enclave(sandbox), new_key())
        plaintext = json.dumps({"otp_code": "000000", "public_key": pub_hex(new_key(), True)})
        foreign = json.dumps(seal(pub_hex(new_key()), plaintext.encode()))
        assert _otp_verify(client, credential["id"], foreign).status_code == 202


@check("wallet-hpke-500")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        credential = email_credential(client, customer(client))
        otp_bundle(client, credential["id"], _enclave(sandbox), new_key())
        bundle = json.dumps({"encappedPublic": "04" + "00" * 64, "ciphertext": "00" * 40})
        assert _otp_verify(client, credential["id"], bundle).status_code == 500


@check("wallet-signature-unchecked")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    def forged(client, owner, first):  # type: ignore[no-untyped-def]
        return retry_headers(first, sign_hex(new_key(), first["payloadToSign"]))

    with sandbox.client() as client:
        assert _patch_with(client, sandbox, forged) == 200


@check("wallet-legacy-literal-refused")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    def literal(client, owner, first):  # type: ignore[no-untyped-def]
        return retry_headers(first, "sandbox-valid-signature")

    with sandbox.client() as client:
        assert _patch_with(client, sandbox, literal) == 401


@check("wallet-request-id-unbound")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    def borrowed(client, owner, first):  # type: ignore[no-untyped-def]
        account = wallet_account(client, owner.customer_id)["id"]
        other = client.post(
            f"/internal-accounts/{account}/export", json={"targetPublicKey": pub_hex(new_key())}
        ).json()
        return retry_headers(other, sign_hex(owner.key, other["payloadToSign"]))

    with sandbox.client() as client:
        assert _patch_with(client, sandbox, borrowed) == 200


@check("wallet-session-revoke-ignored")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    def revoked(client, owner, first):  # type: ignore[no-untyped-def]
        gone = signed(client, "DELETE", f"/auth/sessions/{owner.session['id']}", owner.key)
        assert gone.json()["status"] == "REVOKED"
        return retry_headers(first, sign_hex(owner.key, first["payloadToSign"]))

    with sandbox.client() as client:
        assert _patch_with(client, sandbox, revoked) == 200


@check("wallet-credential-revoke-ignored")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        owner = wallet(client, _enclave(sandbox))
        credential_id = owner.credential["id"]
        gone = signed(client, "DELETE", f"/auth/credentials/{credential_id}", owner.key)
        assert gone.json()["status"] == "REVOKED"
        assert client.post(f"/auth/credentials/{credential_id}/challenge").status_code == 200


@check("wallet-passkey-counter-ignored")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    assert _assertion_status(sandbox, counter=0) == 200


@check("wallet-passkey-challenge-ignored")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    assert _assertion_status(sandbox, challenge="b3RoZXI") == 200


@check("wallet-passkey-origin-ignored")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    assert _assertion_status(sandbox, origin="https://evil.example") == 200


@check("wallet-passkey-up-ignored")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    assert _assertion_status(sandbox, flags=0x04) == 200


@check("wallet-passkey-challenge-names-another-id")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        key = passkey(client)
        answer = passkey_challenge(client, key, new_key())
        registered = key.credential["passkey"]["credentialId"]
        assert answer["credentialId"] not in (registered, key.credential["id"])
        # the challenge still works: only the id it names is wrong
        assertion = key.authenticator.assertion(answer["challenge"])
        assert passkey_verify(client, key, answer, assertion).status_code == 200


@check("wallet-oauth-iat-unchecked")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        old = jwt(claims(iat=int(time.time()) - 3600))
        assert _register_oauth(client, old).status_code == 201


@check("wallet-oauth-alg-none")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        token = jwt(claims(), header={"alg": "none"}).rsplit(".", 1)[0] + "."
        assert _register_oauth(client, token).status_code == 201


@check("wallet-oauth-nonce-ignored")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    assert _oauth_verify(sandbox, "alice", pub_hex(new_key())) == 200


@check("wallet-oauth-identity-unchecked")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    assert _oauth_verify(sandbox, "mallory", None) == 200


@check("wallet-execute-unsigned")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        holder = approved(client)
        wallet(client, _enclave(sandbox), holder.id)
        account_id = wallet_account(client, holder.id)["id"]
        fund(client, account_id, 50_000_000)
        destination = external(client, holder.id, "WALLET")["id"]
        created = quote(client, account_id, destination, amount=10_000_000)
        response = client.post(f"/quotes/{created['id']}/execute")
        assert response.status_code == 200, response.text
        balance = wallet_account(client, holder.id)["availableBalance"]["amount"]
        assert balance == 50_000_000 - created["totalSendingAmount"]


@check("wallet-export-unsigned")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        owner = wallet(client, _enclave(sandbox))
        account = wallet_account(client, owner.customer_id)["id"]
        body = {"targetPublicKey": pub_hex(new_key())}
        response = client.post(f"/internal-accounts/{account}/export", json=body)
        assert response.status_code == 200 and "exportBundle" in response.json()
