"""How the suite's wallet client walks embedded-wallet authentication (§4 auth rows, §5
Authentication — embedded wallet, items 1 to 6): customers with credentials of each type,
challenges and verifies, the session signing keys they yield, and signed retries.

The client is honest by default; every step takes the knob its hostile twin needs (a wrong
code, a tampered bundle, a hostile assertion, a token with one claim wrong, a bad
signature), so the tests read as "send this, see a refusal". Keys live in ``WalletKey``s,
registered as secrets on creation; failure messages carry statuses, reasons and public
values only.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from conformance.contract import clauses
from conformance.contract.error_bodies import reason_of
from conformance.contract.failures import check, fail
from conformance.customers.money_customers import MoneyCustomers
from conformance.exchange.client import ApiResponse, TargetClient
from conformance.ground.profile import TargetProfile
from conformance.ground.public_keys import public_key_from_hex
from conformance.ground.secrets import register_secret
from conformance.payments.external_accounts import ExternalAccounts
from conformance.payments.funding import Funding
from conformance.payments.quotes import Quotes
from conformance.wallet.authenticator import SoftAuthenticator, Tamper, b64url
from conformance.wallet.bundles import (
    BundleProblem,
    open_sealed_bundle,
    otp_bundle,
    read_signed_bundle,
    target_public_key,
)
from conformance.wallet.format import WalletFormat
from conformance.wallet.keys import WalletKey
from conformance.wallet.operations import WalletOperations
from conformance.wallet.records import Credential, Session, Signed
from conformance.wallet.tokens import Identity, TokenMinter, nonce_for

__all__ = ["ENDPOINT", "SIGNATURE_HEADER", "EmbeddedWallet", "item"]

SIGNATURE_HEADER = "Service-Wallet-Signature"
REQUEST_ID_HEADER = "Request-Id"
_AUTH_ROWS = clauses.CARDS_AGENTS_SANDBOX_ENDPOINTS
ENDPOINT = {
    "register": f"{_AUTH_ROWS} — POST /auth/credentials",
    "challenge": f"{_AUTH_ROWS} — POST /auth/credentials/{{id}}/challenge",
    "verify": f"{_AUTH_ROWS} — POST /auth/credentials/{{id}}/verify",
    "delete": f"{_AUTH_ROWS} — DELETE /auth/credentials/{{id}}",
    "delete session": f"{_AUTH_ROWS} — DELETE /auth/sessions/{{id}}",
}


def item(number: int) -> str:
    """The clause of §5's embedded-wallet list item ``number``."""
    return f"{clauses.AUTHENTICATION} — embedded wallet, item {number}"


def _json(response: ApiResponse) -> dict[str, Any]:
    body = response.json if response.is_json else None
    return body if isinstance(body, dict) else {}


def _seen(response: ApiResponse) -> tuple[int, Any]:
    body = response.json if response.is_json else response.content[:200]
    return response.status, reason_of(body) if isinstance(body, dict) and body else body


class EmbeddedWallet(WalletOperations):
    """The wallet client for one test session (the ``embedded_wallet`` fixture)."""

    def __init__(
        self,
        customers: MoneyCustomers,
        funding: Funding,
        external_accounts: ExternalAccounts,
        quotes: Quotes,
        fmt: WalletFormat,
    ) -> None:
        self.customers = customers
        self.funding = funding
        self.external_accounts = external_accounts
        self.quotes = quotes
        self.client: TargetClient = funding.client
        self.profile: TargetProfile = funding.profile
        self.format = fmt
        self.minter = TokenMinter()

    # -- settings the interface does not show -----------------------------------------------

    def enclave_key(self) -> ec.EllipticCurvePublicKey | None:
        return public_key_from_hex(self.profile.wallet_enclave_public_key)

    def passkey_site(self) -> tuple[str, str]:
        """The RP id and origin passkeys are made for; skip when the profile lacks them."""
        rp_id, origin = self.profile.wallet_rp_id, self.profile.wallet_origin
        if not rp_id or not origin:
            pytest.skip(
                "needs the WebAuthn RP id and origin (--wallet-rp-id / --wallet-origin, "
                "CONFORMANCE_WALLET_RP_ID / CONFORMANCE_WALLET_ORIGIN, profile keys "
                "'wallet_rp_id' / 'wallet_origin'); §5 does not show them"
            )
        return rp_id, origin

    def issuer(self) -> str:
        """A supported OIDC issuer; skip when the profile names none."""
        if not self.profile.wallet_oidc_issuers:
            pytest.skip(
                "needs the supported OIDC issuers (--wallet-oidc-issuers, "
                "CONFORMANCE_WALLET_OIDC_ISSUERS, profile key 'wallet_oidc_issuers'); "
                "§5 does not list them"
            )
        return self.profile.wallet_oidc_issuers[0]

    def identity(self) -> Identity:
        return Identity(self.issuer(), "conformance-" + os.urandom(4).hex())

    # -- customers and registration ----------------------------------------------------------

    def customer(self) -> dict[str, Any]:
        """A new approved customer (USD), with no credential yet."""
        return self.customers.approved_customer(("USD",))

    def register(
        self, customer_id: str, kind: str, material: dict[str, Any], **headers: str
    ) -> ApiResponse:
        """POST /auth/credentials {customerId, type, ...material}."""
        body = {"customerId": customer_id, "type": kind, **material}
        return self.client.post("/auth/credentials", json=body, headers=headers or None)

    def material(self, customer: dict[str, Any], kind: str) -> dict[str, Any]:
        """A registration body's type-specific part for a new credential of ``kind``; the
        authenticator or identity it uses is under ``_authenticator`` / ``_identity``."""
        if kind == "EMAIL_OTP":
            email = customer.get("email")
            return {"email": email if isinstance(email, str) and email else
                    f"wallet-{os.urandom(4).hex()}@example.com"}  # fmt: skip
        if kind == "SMS_OTP":
            phone = customer.get("phoneNumber")
            if not (isinstance(phone, str) and phone):
                phone = "+1415555" + "".join(str(b % 10) for b in os.urandom(4))
            return {"phoneNumber": phone}
        if kind == "PASSKEY":
            authenticator = SoftAuthenticator(*self.passkey_site())
            challenge = b64url(os.urandom(32))
            return {
                "challenge": challenge,
                "attestation": authenticator.attestation(challenge),
                "_authenticator": authenticator,
            }
        identity = self.identity()
        return {"oidcToken": self.minter.for_identity(identity), "_identity": identity}

    def credential(
        self, customer: dict[str, Any], kind: str, *, signer: Session | None = None
    ) -> Credential:
        """Register a credential of ``kind``: directly for a customer's first one, by the
        signed retry (``signer``'s key) for a further one."""
        __tracebackhide__ = True
        material = self.material(customer, kind)
        authenticator = material.pop("_authenticator", None)
        identity = material.pop("_identity", None)
        customer_id = str(customer["id"])
        if signer is None:
            response = self.register(customer_id, kind, material)
        else:
            body = {"customerId": customer_id, "type": kind, **material}
            response = self.signed("POST", "/auth/credentials", body, signer.key).answer
        found = _json(response).get("id")
        check(
            response.status in (200, 201) and isinstance(found, str) and found != "",
            ENDPOINT["register"],
            f"registering a {kind} credential"
            + (" (a further one, by the signed retry)" if signer else "")
            + " returns the credential, with the id later calls address it by",
            expected="201 credential with an id",
            observed=_seen(response),
            exchange=response.exchange,
        )
        return Credential(str(found), kind, customer_id, _json(response), authenticator, identity)

    # -- wallet-signed operations (§5 item 4) ------------------------------------------------

    def first_call(
        self, method: str, path: str, body: dict[str, Any] | None, **headers: str
    ) -> ApiResponse:
        kwargs: dict[str, Any] = {"headers": headers or None}
        if body is not None:
            kwargs["json"] = body
        return self.client.request(method, path, **kwargs)

    def signature_challenge(self, response: ApiResponse, what: str) -> tuple[str, str]:
        """``payloadToSign`` and ``requestId`` of a 202 answer (item 1 / item 4)."""
        __tracebackhide__ = True
        body = _json(response)
        payload, request_id = body.get("payloadToSign"), body.get("requestId")
        check(
            response.status == 202 and isinstance(payload, str) and isinstance(request_id, str),
            item(4),
            f"{what} without the wallet signature answers 202 with payloadToSign and requestId "
            "for the client to sign",
            expected="202 {payloadToSign, requestId}",
            observed=_seen(response),
            exchange=response.exchange,
        )
        check(
            "exportBundle" not in body and "encryptedSessionSigningKey" not in body,
            item(4),
            f"{what} without the wallet signature does not take effect: its 202 hands out no "
            "export and no session key",
            observed=sorted(body),
            exchange=response.exchange,
        )
        assert isinstance(payload, str) and isinstance(request_id, str)
        return payload, request_id

    def sign(self, key: WalletKey, payload: str) -> str:
        """The ``Service-Wallet-Signature`` of ``payload`` by ``key``, in the target's
        encoding."""
        return self.format.encode_signature(key.sign_raw(payload.encode("utf-8")))

    def retry(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None,
        *,
        signature: str | None,
        request_id: str | None,
    ) -> ApiResponse:
        headers = {}
        if signature is not None:
            headers[SIGNATURE_HEADER] = signature
        if request_id is not None:
            headers[REQUEST_ID_HEADER] = request_id
        return self.first_call(method, path, body, **headers)

    def signed(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None,
        key: WalletKey | None,
        *,
        signature: Callable[[str], str] | None = None,
        request_id: Callable[[str], str | None] | None = None,
    ) -> Signed:
        """First call (202), then the retry signed by ``key`` (or with ``signature(payload)``
        and ``request_id(requestId)`` when a test forges them; None leaves one out)."""
        __tracebackhide__ = True
        first = self.first_call(method, path, body)
        payload, rid = self.signature_challenge(first, f"{method} {path.split('?')[0]}")
        if signature is not None:
            signed_value: str | None = signature(payload)
        else:
            signed_value = self.sign(key, payload) if key is not None else None
        sent_id = request_id(rid) if request_id is not None else rid
        answer = self.retry(method, path, body, signature=signed_value, request_id=sent_id)
        return Signed(first, payload, rid, answer)

    # -- OTP (§5 item 1) ---------------------------------------------------------------------

    def otp_challenge(self, credential: Credential) -> tuple[ec.EllipticCurvePublicKey, str | None]:
        """POST .../challenge on an OTP credential: the target key of its bundle and the
        challenge's requestId, if it gives one."""
        __tracebackhide__ = True
        response = self.client.post(f"/auth/credentials/{credential.id}/challenge", json={})
        body = _json(response)
        bundle = body.get("otpEncryptionTargetBundle")
        check(
            response.status == 200 and bundle is not None,
            ENDPOINT["challenge"],
            "the challenge of an OTP credential returns otpEncryptionTargetBundle",
            expected="200 {otpEncryptionTargetBundle}",
            observed=_seen(response),
            exchange=response.exchange,
        )
        try:
            target = target_public_key(read_signed_bundle(bundle, self.enclave_key(), self.format))
        except BundleProblem as exc:
            fail(
                item(1),
                "otpEncryptionTargetBundle names the key the client HPKE-encrypts its OTP "
                "bundle to (reference format: enclave-signed, data.targetPublic)",
                observed=str(exc),
                hint=f"a target with another bundle format overrides it through "
                f"pytest_conformance_wallet_format ({', '.join(WalletFormat.__slots__)})",
                exchange=response.exchange,
            )
        request_id = body.get("requestId")
        return target, request_id if isinstance(request_id, str) else None

    def otp_verify(
        self, credential: Credential, bundle: str, request_id: str | None
    ) -> ApiResponse:
        """POST .../verify {encryptedOtpBundle} (first call, no signature)."""
        headers = {REQUEST_ID_HEADER: request_id} if request_id else {}
        return self.first_call(
            "POST",
            f"/auth/credentials/{credential.id}/verify",
            {"encryptedOtpBundle": bundle},
            **headers,
        )

    def otp_bundle(
        self,
        target: ec.EllipticCurvePublicKey,
        tek: WalletKey,
        *,
        code: str | None = None,
        compressed: bool = True,
    ) -> str:
        code = self.format.sandbox_otp_code if code is None else code
        register_secret(code)
        return otp_bundle(target, code, tek.public_hex(compressed=compressed), self.format)

    def otp_session(self, credential: Credential) -> Session:
        """Challenge, encrypt the sandbox code with a fresh TEK key, verify (202), sign the
        payload with the TEK key and retry: the session. For EMAIL_OTP the TEK key is the
        session key; for SMS_OTP the answer seals one to the TEK key."""
        __tracebackhide__ = True
        target, challenge_id = self.otp_challenge(credential)
        tek = WalletKey.generate()
        body = {"encryptedOtpBundle": self.otp_bundle(target, tek)}
        path = f"/auth/credentials/{credential.id}/verify"
        headers = {REQUEST_ID_HEADER: challenge_id} if challenge_id else {}
        first = self.first_call("POST", path, body, **headers)
        payload, request_id = self.signature_challenge(first, "the OTP verify")
        answer = self.retry(
            "POST", path, body, signature=self.sign(tek, payload), request_id=request_id
        )
        check(
            answer.status == 200,
            item(1),
            "the OTP verify completes when retried with Service-Wallet-Signature (the TEK "
            "key's signature of payloadToSign) and Request-Id (the requestId returned)",
            expected=200,
            observed=_seen(answer),
            exchange=answer.exchange,
        )
        key = tek
        if credential.type == "SMS_OTP":
            key = self.session_key(answer, tek, "the SMS_OTP verify")
        return Session(key, credential, self.session_id(answer), _json(answer))

    # -- passkeys (§5 item 2) ----------------------------------------------------------------

    def passkey_challenge(self, credential: Credential, client_key: WalletKey) -> tuple[str, str]:
        """POST .../challenge {clientPublicKey}: the challenge and requestId; the
        credentialId names the passkey challenged."""
        __tracebackhide__ = True
        response = self.client.post(
            f"/auth/credentials/{credential.id}/challenge",
            json={"clientPublicKey": client_key.public_hex()},
        )
        body = _json(response)
        challenge, request_id = body.get("challenge"), body.get("requestId")
        named = body.get("credentialId")
        check(
            response.status == 200
            and isinstance(challenge, str)
            and isinstance(request_id, str)
            and isinstance(named, str),
            ENDPOINT["challenge"],
            "the challenge of a passkey credential with a P-256 clientPublicKey returns "
            "challenge, credentialId and requestId",
            expected="200 {challenge, credentialId, requestId}",
            observed=_seen(response),
            exchange=response.exchange,
        )
        assert isinstance(challenge, str) and isinstance(request_id, str)
        authenticator = credential.authenticator
        check(
            named == credential.id
            or (authenticator is not None and authenticator.is_named_by(named)),
            ENDPOINT["challenge"],
            "the credentialId a passkey challenge returns names the passkey challenged: its "
            "WebAuthn credential id (as registered) or the credential's own id",
            expected=" or ".join(
                [credential.id, *([authenticator.credential_id] if authenticator else [])]
            ),
            observed=named,
            exchange=response.exchange,
        )
        return challenge, request_id

    def passkey_verify(
        self, credential: Credential, challenge: str, request_id: str,
        tamper: Tamper | None = None, *, assertion: dict[str, Any] | None = None,
    ) -> ApiResponse:  # fmt: skip
        """POST .../verify {assertion} with the challenge's Request-Id."""
        assert credential.authenticator is not None
        sent = assertion or credential.authenticator.assertion(challenge, tamper)
        return self.client.post(
            f"/auth/credentials/{credential.id}/verify",
            json={"assertion": sent},
            headers={REQUEST_ID_HEADER: request_id},
        )

    def passkey_session(self, credential: Credential) -> Session:
        __tracebackhide__ = True
        client_key = WalletKey.generate()
        challenge, request_id = self.passkey_challenge(credential, client_key)
        answer = self.passkey_verify(credential, challenge, request_id)
        self.accepted(answer, item(2), "an honest assertion answering the challenge is accepted")
        key = self.session_key(answer, client_key, "the passkey verify")
        return Session(key, credential, self.session_id(answer), _json(answer))

    # -- OAuth (§5 item 3) -------------------------------------------------------------------

    def oauth_verify(
        self, credential: Credential, client_key: WalletKey, token: str | None = None,
        **claims: Any,
    ) -> ApiResponse:  # fmt: skip
        """POST .../verify {oidcToken, clientPublicKey}; the token is fresh, of the
        credential's identity and bound to the key, with ``claims`` changed."""
        assert credential.identity is not None
        client_hex = client_key.public_hex()
        if token is None:
            changes = {"nonce": nonce_for(client_hex), **claims}
            token = self.minter.for_identity(credential.identity, **changes)
        return self.client.post(
            f"/auth/credentials/{credential.id}/verify",
            json={"oidcToken": token, "clientPublicKey": client_hex},
        )

    def oauth_session(self, credential: Credential) -> Session:
        __tracebackhide__ = True
        client_key = WalletKey.generate()
        answer = self.oauth_verify(credential, client_key)
        self.accepted(answer, item(3), "a fresh token of the stored identity, bound by its "
                      "nonce to clientPublicKey, is accepted")  # fmt: skip
        key = self.session_key(answer, client_key, "the OAuth verify")
        return Session(key, credential, self.session_id(answer), _json(answer))

    def session(self, credential: Credential) -> Session:
        """A session of ``credential``, by the flow of its type."""
        if credential.type == "PASSKEY":
            return self.passkey_session(credential)
        if credential.type == "OAUTH":
            return self.oauth_session(credential)
        return self.otp_session(credential)

    # -- answers -----------------------------------------------------------------------------

    def accepted(self, response: ApiResponse, clause: str, statement: str) -> None:
        __tracebackhide__ = True
        check(
            response.status == 200,
            clause,
            statement,
            expected=200,
            observed=_seen(response),
            exchange=response.exchange,
        )

    def session_key(self, answer: ApiResponse, receiver: WalletKey, what: str) -> WalletKey:
        """Decrypt ``encryptedSessionSigningKey`` with the client key it was sealed to."""
        __tracebackhide__ = True
        sealed = _json(answer).get("encryptedSessionSigningKey")
        try:
            if sealed is None:
                raise BundleProblem("encryptedSessionSigningKey is missing")
            data = read_signed_bundle(sealed, self.enclave_key(), self.format)
            scalar = open_sealed_bundle(data, receiver, self.format)
            return WalletKey.from_private_bytes(scalar)
        except (BundleProblem, ValueError) as exc:
            fail(
                item(4),
                f"{what} returns encryptedSessionSigningKey sealed to the client's key; its "
                "private key decrypts it into the session signing key",
                observed=str(exc),
                exchange=answer.exchange,
            )

    def session_id(self, answer: ApiResponse) -> str | None:
        session = _json(answer).get(self.format.session_field)
        found = session.get("id") if isinstance(session, dict) else None
        return found if isinstance(found, str) and found else None
