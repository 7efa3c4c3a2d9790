"""What the interface asks of a platform's client: one rule per check, each naming its
clause and the spec part its report row goes under."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Rule:
    """One client rule: a stable id, the clause it holds the client to, its part, a title."""

    id: str
    clause: str
    part: str
    title: str

    def as_json(self) -> dict[str, Any]:
        """The rule as the journal's start line lists it."""
        return asdict(self)


BASIC_CREDENTIALS = Rule(
    "CLIENT-BASIC-CREDENTIALS",
    "§5 Authentication",
    "auth",
    "platform requests carry HTTP Basic <api token id>:<api client secret> of the sandbox",
)
REQUEST_BODY = Rule(
    "CLIENT-REQUEST-BODY",
    "§4 Endpoints",
    "endpoints",
    "JSON request bodies follow the interface's request shapes",
)
IDEMPOTENCY_KEY = Rule(
    "CLIENT-IDEMPOTENCY-KEY",
    "§4 Accounts",
    "endpoints",
    "POST /internal-accounts: Idempotency-Key up to 255 characters, one key per account",
)
SIGNED_RETRY = Rule(
    "CLIENT-SIGNED-RETRY",
    "§5 Authentication, embedded wallet item 4",
    "auth",
    "a signed retry carries Service-Wallet-Signature and Request-Id, and repeats its call",
)
WALLET_SIGNATURE = Rule(
    "CLIENT-WALLET-SIGNATURE",
    "§5 Authentication, embedded wallet item 4",
    "auth",
    "Service-Wallet-Signature is a P-256 signature over the exact payloadToSign",
)
TEK_COMPRESSED = Rule(
    "CLIENT-TEK-COMPRESSED",
    "§5 Authentication, embedded wallet item 1",
    "auth",
    "the OTP bundle carries the TEK public key compressed (prefix 02 or 03)",
)
DOCUMENT_UPLOAD = Rule(
    "CLIENT-DOCUMENT-UPLOAD",
    "§2 Document",
    "endpoints",
    "POST /documents is multipart/form-data with a PDF, JPEG or PNG file of at most 10 MB",
)

RULES: tuple[Rule, ...] = (
    BASIC_CREDENTIALS,
    REQUEST_BODY,
    IDEMPOTENCY_KEY,
    SIGNED_RETRY,
    WALLET_SIGNATURE,
    TEK_COMPRESSED,
    DOCUMENT_UPLOAD,
)
