"""Where the areas already open and verify what a client sent, the check watches the value
they compute (a seam, ``reference.kernel.seams``) and judges the client by it, without
doing the cryptography twice. Each observer returns the value unchanged."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reference.accounts import rule_based
from reference.client_check import judgement
from reference.client_check.rules import (
    IDEMPOTENCY_KEY,
    SIGNED_RETRY,
    TEK_COMPRESSED,
    WALLET_SIGNATURE,
)
from reference.kernel.seams import Seam, Seams
from reference.wallet import otp, signatures


def tek_key_compressed(compressed: bool, **context: Any) -> bool:
    """An opened OTP bundle's TEK public key must be compressed (§5 item 1)."""
    if (current := judgement.current()) is not None:
        if compressed:
            current.checks(TEK_COMPRESSED)
        else:
            current.finds(
                TEK_COMPRESSED,
                f"{TEK_COMPRESSED.clause}: the public_key in the decrypted encryptedOtpBundle is "
                "not the compressed form (hex of 33 bytes starting 02 or 03)",
            )
    return compressed


def signer_refusal(refusal: str | None, **context: Any) -> str | None:
    """A signed retry's signature must verify over the exact payloadToSign (§5 item 4)."""
    if (current := judgement.current()) is not None:
        if refusal == "bad signature":
            current.finds(
                WALLET_SIGNATURE,
                f"{WALLET_SIGNATURE.clause}: Service-Wallet-Signature is not a P-256 signature "
                "over the exact payloadToSign by the signing key (the session key; on the OTP "
                "verify retry, the TEK private key), in hex, DER or raw r||s (both are taken)",
            )
        else:
            current.checks(WALLET_SIGNATURE)
    return refusal


def request_id_bound(bound: bool, **context: Any) -> bool:
    """A retry repeats the call its Request-Id answered: same operation, body and customer."""
    if (current := judgement.current()) is not None:
        if bound:
            current.checks(SIGNED_RETRY)
        else:
            current.finds(
                SIGNED_RETRY,
                f"{SIGNED_RETRY.clause}: the signed retry does not repeat the call whose 202 "
                "gave its Request-Id (another operation, body or customer)",
            )
    return bound


def key_record(record: tuple[str, str] | None, **context: Any) -> tuple[str, str] | None:
    """One Idempotency-Key, one account: reusing it for a materially different account is
    refused with 409 (§4 Accounts, §7)."""
    current = judgement.current()
    if current is not None and record is not None and record[0] != context.get("digest"):
        current.finds(
            IDEMPOTENCY_KEY,
            f"{IDEMPOTENCY_KEY.clause}: this Idempotency-Key was already used for a materially "
            "different account (the service answers 409); use a new key for a new account",
        )
    return record


OBSERVERS: tuple[tuple[Seam, Callable[..., Any]], ...] = (
    (otp.TEK_KEY_COMPRESSED, tek_key_compressed),
    (signatures.SIGNER_REFUSAL, signer_refusal),
    (signatures.REQUEST_ID_BOUND, request_id_bound),
    (rule_based.KEY_RECORD, key_record),
)


def watching(seams: Seams) -> Seams:
    """``seams`` with the observers attached after whatever is attached already."""
    attached = [(at, alteration) for at, alterations in seams.attached.items()
                for alteration in alterations]  # fmt: skip
    return Seams.attaching([*attached, *OBSERVERS])
