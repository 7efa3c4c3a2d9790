"""What the suite's wallet client holds between calls: the credentials it registered, their
sessions, and the wallet-signed exchanges (§5 Authentication — embedded wallet)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from conformance.exchange.client import ApiResponse
from conformance.wallet.authenticator import SoftAuthenticator
from conformance.wallet.keys import WalletKey
from conformance.wallet.tokens import Identity

__all__ = ["Credential", "Session", "Signed"]


@dataclass
class Credential:
    """A credential the suite registered, with what it needs to authenticate again."""

    id: str
    type: str
    customer_id: str
    body: dict[str, Any]
    authenticator: SoftAuthenticator | None = None
    identity: Identity | None = None


@dataclass
class Session:
    """A session of a credential: its signing key (held by the suite) and id, if shown."""

    key: WalletKey
    credential: Credential
    id: str | None
    answer: dict[str, Any] = field(default_factory=dict)

    @property
    def customer_id(self) -> str:
        """The customer whose credential opened the session."""
        return self.credential.customer_id


@dataclass(frozen=True, slots=True)
class Signed:
    """A wallet-signed operation: the 202 challenge and the answer to the retry."""

    challenge: ApiResponse
    payload: str
    request_id: str
    answer: ApiResponse
