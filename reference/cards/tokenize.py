"""``POST /cards/{cardId}/tokenize`` (§4 Cards, stablecoins, agents, auth, sandbox): the
encrypted provisioning payload for a digital wallet's add-to-wallet step.

Field names and the encryption format are not shown; the reference's choice (SANDBOX.md,
"Cards, agents and invitations"): the request is the wallet SDK's values, an object with
``walletProvider`` (``APPLE_PAY``, ``GOOGLE_PAY``, ``SAMSUNG_PAY``) and any other strings
(``deviceId``, ``walletAccountId``, ``nonce``, ...). The answer is ``{cardId,
walletProvider, encryptedPayload, publicKeyFingerprint}`` where ``encryptedPayload`` is a
compact JWE (``RSA-OAEP-256`` + ``A256GCM``) to the sandbox wallet provider's RSA test key
and ``publicKeyFingerprint`` the hex SHA-256 of that key's DER SubjectPublicKeyInfo. The
plaintext is JSON ``{cardId, tokenPan, expiry, walletProvider, nonce?}``.

The test key pair is created once and kept in the database; ``GET
/sandbox/cards/wallet-provider-key`` publishes ``{publicKeyPem, privateKeyPem}`` (a sandbox
test key, so the adapter can hand it to the suite to decrypt).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import random
from typing import Any

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from starlette.responses import JSONResponse, Response

from reference.cards import issuing as cards
from reference.kernel.db import Database
from reference.kernel.errors import FieldError, InvalidInput
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam

PROVIDERS = ("APPLE_PAY", "GOOGLE_PAY", "SAMSUNG_PAY")
_HEADER = {"alg": "RSA-OAEP-256", "enc": "A256GCM", "cty": "application/json"}

PAYLOAD = seam(
    "cards.provisioning_payload",
    "the encryptedPayload POST /cards/{id}/tokenize answers: a compact JWE to the wallet"
    " provider's key (context: plaintext, the provisioning data as JSON bytes)",
)


def b64url(data: bytes) -> str:
    """``data`` as unpadded base64url text."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def provider_key(db: Database) -> rsa.RSAPrivateKey:
    """The sandbox wallet provider's RSA test key, created on first use."""
    row = db.fetchone("SELECT private_pem FROM card_provider_keys WHERE id = 1")
    if row is None:
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode("ascii")
        db.execute(
            "INSERT OR IGNORE INTO card_provider_keys (id, private_pem) VALUES (1, ?)", [pem]
        )
        row = db.fetchone("SELECT private_pem FROM card_provider_keys WHERE id = 1")
        assert row is not None
    loaded = serialization.load_pem_private_key(row["private_pem"].encode(), password=None)
    assert isinstance(loaded, rsa.RSAPrivateKey)
    return loaded


def _public_der(key: rsa.RSAPrivateKey) -> bytes:
    return key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def encrypt_jwe(public_key: rsa.RSAPublicKey, plaintext: bytes) -> str:
    """A compact JWE of ``plaintext``: RSA-OAEP-256 wraps a fresh A256GCM key."""
    header = b64url(json.dumps(_HEADER, separators=(",", ":")).encode())
    cek, iv = os.urandom(32), os.urandom(12)
    oaep = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
    wrapped = public_key.encrypt(cek, oaep)
    sealed = AESGCM(cek).encrypt(iv, plaintext, header.encode("ascii"))
    ciphertext, tag = sealed[:-16], sealed[-16:]
    return ".".join((header, b64url(wrapped), b64url(iv), b64url(ciphertext), b64url(tag)))


def _sdk_values(body: dict[str, Any]) -> str:
    provider = body.get("walletProvider")
    errors = []
    if provider not in PROVIDERS:
        errors.append(FieldError("walletProvider", "ONE_OF", f"one of {', '.join(PROVIDERS)}"))
    errors += [
        # an empty member name is no field path: the body is, and the message names it
        FieldError(k or "body", "STRING", f"{k!r}: wallet SDK values are strings")
        for k, v in body.items()
        if not isinstance(v, str)
    ]
    if errors:
        raise InvalidInput(errors)
    return str(provider)


def tokenize(request: ApiRequest) -> Response:
    """``POST /cards/{cardId}/tokenize`` → the encrypted provisioning payload."""
    services = request.services
    provider = _sdk_values(request.body)
    with services.db.transaction():
        card = cards.require(services.db, request.platform.id, request.path_params["cardId"])
        key = provider_key(services.db)
    plain: dict[str, Any] = {
        "cardId": card.id,
        "tokenPan": "4" + "".join(random.choice("0123456789") for _ in range(11)) + card.last4,
        "expiry": "12/30",
        "walletProvider": provider,
    }
    if isinstance(request.body.get("nonce"), str):
        plain["nonce"] = request.body["nonce"]
    data = json.dumps(plain, separators=(",", ":")).encode()
    payload = services.settings.seams.apply(
        PAYLOAD, encrypt_jwe(key.public_key(), data), plaintext=data
    )
    return JSONResponse(
        {
            "cardId": card.id,
            "walletProvider": provider,
            "encryptedPayload": payload,
            "publicKeyFingerprint": hashlib.sha256(_public_der(key)).hexdigest(),
        }
    )


def provider_key_pair(request: ApiRequest) -> Response:
    """``GET /sandbox/cards/wallet-provider-key`` → the test key pair, PEM."""
    with request.services.db.transaction():
        key = provider_key(request.services.db)
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return JSONResponse({"publicKeyPem": public.decode(), "privateKeyPem": private.decode()})


ROUTES = [
    api_route("/cards/{cardId}/tokenize", Operation("POST", tokenize, body=True)),
    api_route("/sandbox/cards/wallet-provider-key", Operation("GET", provider_key_pair)),
]
