"""``POST /auth/credentials`` (§4 auth rows, §5): reading and checking a registration of
each type, and storing it (SANDBOX.md, "Credentials, sessions and who owns them").

A customer's first credential is registered directly (``201``); while it holds an active
one, a further credential is a wallet-signed operation: ``202 {payloadToSign, requestId}``,
then the signed retry of the same body registers it. Registering the first credential
also opens the customer's ``EMBEDDED_WALLET`` account.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.responses import JSONResponse, Response

from reference.customers.store import load_or_404
from reference.kernel import field_checks
from reference.kernel.errors import ApiError, InvalidInput
from reference.kernel.routing import ApiRequest
from reference.kernel.validation import Problems
from reference.wallet import accounts as wallet_accounts
from reference.wallet import oidc as wallet_oidc
from reference.wallet import passkeys as wallet_passkeys
from reference.wallet import signatures
from reference.wallet import store as wallet_store

OPERATION = "POST /auth/credentials"


@dataclass(frozen=True, slots=True)
class Registration:
    """A well-formed registration body, not yet checked cryptographically."""

    customer_id: str
    type: str
    fields: dict[str, Any]


def _passkey_fields(problems: Problems, body: dict[str, Any]) -> dict[str, Any]:
    challenge = wallet_passkeys.read_b64url(problems, body, "challenge", "")
    attestation = problems.required(body, "attestation", "")
    if attestation is None or problems.object("attestation", attestation) is None:
        return {}
    read = wallet_passkeys.read_b64url
    return {
        "challenge": challenge,
        "credentialId": read(problems, attestation, "credentialId", "attestation"),
        "clientData": read(problems, attestation, "clientDataJson", "attestation"),
        "attestationObject": read(problems, attestation, "attestationObject", "attestation"),
    }


def read(body: dict[str, Any]) -> Registration:
    """The registration, or 400 ``INVALID_INPUT`` naming every invalid field."""
    problems = Problems()
    customer_id = problems.required(body, "customerId", "")
    if customer_id is not None:
        customer_id = problems.string("customerId", customer_id)
    kind = problems.required(body, "type", "")
    if kind is not None:
        kind = problems.one_of("type", kind, wallet_store.TYPES)
    fields: dict[str, Any] = {}
    if kind == wallet_store.EMAIL_OTP:
        fields["email"] = field_checks.email(
            problems, "email", problems.required(body, "email", "")
        )
    elif kind == wallet_store.SMS_OTP and body.get("phoneNumber") is not None:
        fields["phoneNumber"] = field_checks.phone(problems, "phoneNumber", body["phoneNumber"])
    elif kind == wallet_store.PASSKEY:
        fields = _passkey_fields(problems, body)
    elif kind == wallet_store.OAUTH:
        token = problems.required(body, "oidcToken", "")
        if token is not None:
            try:
                wallet_oidc.parse(token)
                fields["oidcToken"] = token
            except InvalidInput as exc:
                for error in exc.errors:
                    problems.add(error.field, error.constraint, error.message)
    problems.raise_if_any()
    assert isinstance(customer_id, str) and isinstance(kind, str)
    return Registration(customer_id, kind, fields)


def _details(request: ApiRequest, registration: Registration, phone: Any) -> dict[str, Any]:
    """Check the registration's proof; the credential's per-type part."""
    fields = registration.fields
    if registration.type == wallet_store.OAUTH:
        identity, _ = wallet_oidc.check(request.services.settings, fields["oidcToken"])
        return identity.as_json()
    if registration.type == wallet_store.PASSKEY:
        registered = wallet_passkeys.register(
            fields["challenge"],
            fields["credentialId"],
            fields["clientData"],
            fields["attestationObject"],
        )
        if wallet_store.passkey_id_taken(request.services.db, registered.credential_id):
            raise ApiError(
                409,
                "CREDENTIAL_EXISTS",
                f"passkey {registered.credential_id} is already registered",
            )
        return {
            "credentialId": registered.credential_id,
            "publicKey": registered.public_key_hex,
            "signCount": registered.sign_count,
        }
    if registration.type == wallet_store.SMS_OTP:
        return {"phoneNumber": fields.get("phoneNumber") or phone}
    return {"email": fields["email"]}


def register(request: ApiRequest) -> Response:
    """``POST /auth/credentials`` → ``201`` credential, or ``202`` for a further one."""
    registration = read(request.body)
    services = request.services
    db = services.db
    platform_id = request.platform.id
    with db.transaction():
        customer = load_or_404(db, platform_id, registration.customer_id)
        phone = customer.fields.get("phoneNumber")
        if registration.type == wallet_store.SMS_OTP and not (registration.fields or phone):
            raise ApiError(  # the customer's record: its state
                409, "NO_PHONE_ON_FILE", f"{customer.id} has no phone: send phoneNumber"
            )
        details = _details(request, registration, phone)  # 401 before any 202
        if wallet_store.has_active_credential(db, customer.id):
            if not request.headers.get(signatures.SIGNATURE_HEADER) and not request.headers.get(
                signatures.REQUEST_ID_HEADER
            ):
                return signatures.challenge(request, OPERATION, customer.id)
            signatures.verify(request, OPERATION, customer.id)
        credential = wallet_store.create_credential(
            db, platform_id, customer.id, registration.type, details
        )
        wallet_accounts.open_for(db, platform_id, customer.id)
        body = wallet_store.render_credential(credential)
    return JSONResponse(body, status_code=201)
