"""The client side of embedded-wallet authentication, for the reference's own tests: a soft
WebAuthn authenticator, HPKE sealing and opening, OIDC tokens, wallet signatures, and the
flows that register credentials and open sessions over real HTTP."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from typing import Any

import cbor2
import httpx
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from pyhpke import AEADId, CipherSuite, KDFId, KEMId, KEMKey

from .customer_helpers import created, individual

RP_ID = "wallet.sandbox.gpsi.test"
ORIGIN = "https://wallet.sandbox.gpsi.test"
ISSUER = "https://oidc.sandbox.gpsi.test"
SUITE = CipherSuite.new(KEMId.DHKEM_P256_HKDF_SHA256, KDFId.HKDF_SHA256, AEADId.AES256_GCM)
INFO = b"service_hpke"


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def new_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def pub_hex(key: ec.EllipticCurvePrivateKey, compressed: bool = False) -> str:
    fmt = (
        serialization.PublicFormat.CompressedPoint
        if compressed
        else (serialization.PublicFormat.UncompressedPoint)
    )
    return key.public_key().public_bytes(serialization.Encoding.X962, fmt).hex()


def sign_hex(key: ec.EllipticCurvePrivateKey, payload: str) -> str:
    """A wallet signature: hex DER ECDSA P-256/SHA-256 over the exact payload."""
    return key.sign(payload.encode(), ec.ECDSA(hashes.SHA256())).hex()


# -- HPKE -----------------------------------------------------------------------------------


def seal(receiver_hex: str, plaintext: bytes) -> dict[str, str]:
    """``{encappedPublic, ciphertext}`` sealed to the receiver's public key (hex)."""
    receiver = ec.EllipticCurvePublicKey.from_encoded_point(
        ec.SECP256R1(), bytes.fromhex(receiver_hex)
    )
    enc, context = SUITE.create_sender_context(KEMKey.from_pyca_cryptography_key(receiver), INFO)
    uncompressed = receiver.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    ciphertext = context.seal(plaintext, aad=enc + uncompressed)
    return {"encappedPublic": enc.hex(), "ciphertext": ciphertext.hex()}


def bundle_data(bundle: str, enclave_hex: str) -> dict[str, Any]:
    """The data of an enclave-signed bundle, after checking its signature by the enclave."""
    outer = json.loads(bundle)
    assert outer["version"] == "v1.0.0" and outer["enclaveQuorumPublic"] == enclave_hex
    raw = bytes.fromhex(outer["data"])
    enclave = ec.EllipticCurvePublicKey.from_encoded_point(
        ec.SECP256R1(), bytes.fromhex(enclave_hex)
    )
    enclave.verify(bytes.fromhex(outer["dataSignature"]), raw, ec.ECDSA(hashes.SHA256()))
    data: dict[str, Any] = json.loads(raw)
    return data


def open_bundle(bundle: str, enclave_hex: str, receiver: ec.EllipticCurvePrivateKey) -> bytes:
    """The plaintext of a sealed bundle (session key, export)."""
    data = bundle_data(bundle, enclave_hex)
    enc = bytes.fromhex(data["encappedPublic"])
    context = SUITE.create_recipient_context(enc, KEMKey.from_pyca_cryptography_key(receiver), INFO)
    aad = enc + bytes.fromhex(pub_hex(receiver))
    return bytes(context.open(bytes.fromhex(data["ciphertext"]), aad=aad))


def key_from_scalar(raw: bytes) -> ec.EllipticCurvePrivateKey:
    return ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1())


# -- WebAuthn -------------------------------------------------------------------------------


@dataclass
class SoftAuthenticator:
    """An ES256 authenticator that counts its signatures and sets UP and UV."""

    key: ec.EllipticCurvePrivateKey = field(default_factory=new_key)
    credential_id: bytes = field(default_factory=lambda: os.urandom(16))
    counter: int = 0

    def _cose(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        return cbor2.dumps(
            {
                1: 2,
                3: -7,
                -1: 1,
                -2: numbers.x.to_bytes(32, "big"),
                -3: numbers.y.to_bytes(32, "big"),
            }
        )

    def attestation(
        self, challenge: bytes, origin: str = ORIGIN, rp_id: str = RP_ID, flags: int = 0x45
    ) -> dict[str, str]:
        client = {"type": "webauthn.create", "challenge": b64url(challenge), "origin": origin}
        auth = (
            hashlib.sha256(rp_id.encode()).digest()
            + bytes([flags])
            + self.counter.to_bytes(4, "big")
            + bytes(16)
            + len(self.credential_id).to_bytes(2, "big")
            + self.credential_id
            + self._cose()
        )
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth})
        return {
            "credentialId": b64url(self.credential_id),
            "clientDataJson": b64url(json.dumps(client).encode()),
            "attestationObject": b64url(attestation),
        }

    def assertion(
        self,
        challenge: str,
        *,
        origin: str = ORIGIN,
        rp_id: str = RP_ID,
        flags: int = 0x05,
        counter: int | None = None,
        signer: ec.EllipticCurvePrivateKey | None = None,
        tamper: bool = False,
    ) -> dict[str, str]:
        if counter is None:
            self.counter += 1
            counter = self.counter
        client = json.dumps(
            {"type": "webauthn.get", "challenge": challenge, "origin": origin}
        ).encode()
        auth = hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + counter.to_bytes(4, "big")
        signed = auth + hashlib.sha256(client).digest()
        signature = (signer or self.key).sign(signed, ec.ECDSA(hashes.SHA256()))
        if tamper:  # sign these bytes, send others
            auth = auth[:-1] + bytes([auth[-1] ^ 0xFF])
        return {
            "credentialId": b64url(self.credential_id),
            "clientDataJson": b64url(client),
            "authenticatorData": b64url(auth),
            "signature": b64url(signature),
        }


# -- OIDC -----------------------------------------------------------------------------------

TOKEN_KEY = new_key()


def jwt(claims: dict[str, Any], header: dict[str, Any] | None = None) -> str:
    """An ES256 JWT signed by a key the sandbox never sees (it skips the signature)."""
    head = header or {"alg": "ES256", "typ": "JWT"}
    signing_input = b64url(json.dumps(head).encode()) + "." + b64url(json.dumps(claims).encode())
    r, s = decode_dss_signature(TOKEN_KEY.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
    return signing_input + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def claims(sub: str = "user-1", **overrides: Any) -> dict[str, Any]:
    now = int(time.time())
    base = {"iss": ISSUER, "aud": "platform-app", "sub": sub, "iat": now, "exp": now + 300}
    base.update(overrides)
    return {key: value for key, value in base.items() if value is not None}


def nonce(client_key_hex: str) -> str:
    return hashlib.sha256(client_key_hex.encode()).hexdigest()


# -- flows over HTTP ------------------------------------------------------------------------


def customer(client: httpx.Client) -> str:
    return str(
        created(client.post("/customers", json=individual("Wal Let", email="w@example.com")))["id"]
    )


def signed(
    client: httpx.Client,
    method: str,
    path: str,
    key: ec.EllipticCurvePrivateKey,
    body: Any = None,
) -> httpx.Response:
    """A wallet-signed operation: the first call's 202, then the signed retry."""
    first = client.request(method, path, json=body)
    assert first.status_code == 202, first.text
    challenge = first.json()
    headers = {
        "Service-Wallet-Signature": sign_hex(key, challenge["payloadToSign"]),
        "Request-Id": challenge["requestId"],
    }
    return client.request(method, path, json=body, headers=headers)


def retry_headers(challenge: dict[str, Any], signature: str) -> dict[str, str]:
    return {"Service-Wallet-Signature": signature, "Request-Id": challenge["requestId"]}


def email_credential(client: httpx.Client, customer_id: str) -> dict[str, Any]:
    body = {"customerId": customer_id, "type": "EMAIL_OTP", "email": "w@example.com"}
    return created(client.post("/auth/credentials", json=body))


def otp_bundle(
    client: httpx.Client,
    credential_id: str,
    enclave: str,
    tek: ec.EllipticCurvePrivateKey,
    code: str = "000000",
    compressed: bool = True,
) -> tuple[dict[str, Any], str]:
    """Challenge an OTP credential; the encryptedOtpBundle (JSON string) for ``code``."""
    response = client.post(f"/auth/credentials/{credential_id}/challenge")
    assert response.status_code == 200, response.text
    challenge = response.json()
    target = bundle_data(challenge["otpEncryptionTargetBundle"], enclave)["targetPublic"]
    plaintext = json.dumps({"otp_code": code, "public_key": pub_hex(tek, compressed)}).encode()
    return challenge, json.dumps(seal(target, plaintext))


def otp_session(
    client: httpx.Client, credential_id: str, enclave: str
) -> tuple[dict[str, Any], ec.EllipticCurvePrivateKey]:
    """An EMAIL_OTP login: its session and the TEK key, which is the session key."""
    tek = new_key()
    _, bundle = otp_bundle(client, credential_id, enclave, tek)
    response = signed(
        client,
        "POST",
        f"/auth/credentials/{credential_id}/verify",
        tek,
        {"encryptedOtpBundle": bundle},
    )
    assert response.status_code == 200, response.text
    return response.json()["session"], tek


@dataclass
class Wallet:
    """A customer with an EMAIL_OTP credential, a session and its signing key."""

    customer_id: str
    credential: dict[str, Any]
    session: dict[str, Any]
    key: ec.EllipticCurvePrivateKey


def wallet(client: httpx.Client, enclave: str, customer_id: str | None = None) -> Wallet:
    customer_id = customer_id or customer(client)
    credential = email_credential(client, customer_id)
    session, key = otp_session(client, credential["id"], enclave)
    return Wallet(customer_id, credential, session, key)


def wallet_account(client: httpx.Client, customer_id: str) -> dict[str, Any]:
    response = client.get("/customers/internal-accounts", params={"customerId": customer_id})
    assert response.status_code == 200, response.text
    [account] = [a for a in response.json()["data"] if a["type"] == "EMBEDDED_WALLET"]
    return dict(account)
