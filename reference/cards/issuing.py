"""Cards (§2 Card record; §4: card issuing is not shown, so this is the reference's choice).

``POST /cards {internalAccountId}`` issues a card funded by an ``ACTIVE`` internal account of
a customer and answers ``201`` with the card; ``GET /cards/{cardId}`` reads it back. A card
is ``{id: Card:<uuid>, customerId, internalAccountId, status: ACTIVE, last4,
cardCapabilities: {supportsDigitalWalletTokenization: true}, createdAt, updatedAt}``.
Only ``cardCapabilities.supportsDigitalWalletTokenization`` is stated by the interface.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from typing import Any

from starlette.responses import JSONResponse, Response

from reference.accounts import internal_accounts
from reference.kernel.clock import iso, utc_now
from reference.kernel.db import Database
from reference.kernel.errors import ApiError, FieldError, InvalidInput, RecordsNotFound
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam
from reference.kernel.settings import ServerSettings

ACTIVE = "ACTIVE"
# What the start-up line declares to the suite (its --features).
FEATURES = ("cards",)
PREFIX = "Card:"

RENDERED = seam("cards.card_rendered", "the Card record about to be answered (context: card)")


@dataclass(frozen=True, slots=True)
class Card:
    """One card as stored."""

    id: str
    platform_id: str
    customer_id: str | None
    account_id: str
    status: str
    last4: str
    created_at: str
    updated_at: str


def card_id_of(text: str) -> str:
    """The full ``Card:<uuid>`` id of ``text``, a ``Card:`` id or a bare uuid (§4 GET
    /transactions: ``cardId`` is either)."""
    return text if text.startswith(PREFIX) else PREFIX + text


def _card(row: Any) -> Card:
    return Card(
        id=row["id"],
        platform_id=row["platform_id"],
        customer_id=row["customer_id"],
        account_id=row["account_id"],
        status=row["status"],
        last4=row["last4"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def load(db: Database, platform_id: str, card_id: str) -> Card | None:
    """The platform's card with this id (``Card:`` id or bare uuid), or None."""
    row = db.fetchone(
        "SELECT * FROM cards WHERE id = ? AND platform_id = ?", (card_id_of(card_id), platform_id)
    )
    return None if row is None else _card(row)


def require(db: Database, platform_id: str, card_id: str) -> Card:
    """The card, or ``404 NOT_FOUND``."""
    card = load(db, platform_id, card_id)
    if card is None:
        raise ApiError(404, "NOT_FOUND", f"no card {card_id}")
    return card


def render(settings: ServerSettings, card: Card) -> dict[str, Any]:
    """The card record."""
    body: dict[str, Any] = {
        "id": card.id,
        "customerId": card.customer_id,
        "internalAccountId": card.account_id,
        "status": card.status,
        "last4": card.last4,
        "createdAt": card.created_at,
        "updatedAt": card.updated_at,
        "cardCapabilities": {"supportsDigitalWalletTokenization": True},
    }
    return settings.seams.apply(RENDERED, body, card=card)


def issue(request: ApiRequest) -> Response:
    """``POST /cards {internalAccountId}`` → ``201`` the card."""
    services = request.services
    account_id = request.body.get("internalAccountId")
    if not isinstance(account_id, str) or not account_id:
        field = FieldError("internalAccountId", "REQUIRED", "the funding internal account id")
        raise InvalidInput([field])
    with services.db.transaction():
        account = internal_accounts.load(services.db, request.platform.id, account_id)
        if account is None:  # as an unknown id in a path
            field = FieldError("internalAccountId", "UNKNOWN_ACCOUNT", "an internal account")
            raise RecordsNotFound([field])
        if account.customer_id is None:
            field = FieldError(
                "internalAccountId", "CUSTOMER_ACCOUNT", "an internal account of a customer"
            )
            raise InvalidInput([field])
        if internal_accounts.card_capabilities(account.account_type, account.customer_id) is None:
            field = FieldError("internalAccountId", "CANNOT_FUND_CARD", "an INTERNAL_FIAT account")
            raise InvalidInput([field])
        if account.status != ACTIVE:
            raise ApiError(409, "ACCOUNT_NOT_ACTIVE", f"{account_id} is {account.status}")
        now = iso(utc_now())
        card = Card(
            id=f"{PREFIX}{uuid.uuid4()}",
            platform_id=request.platform.id,
            customer_id=account.customer_id,
            account_id=account.id,
            status=ACTIVE,
            last4=f"{random.randrange(10_000):04d}",
            created_at=now,
            updated_at=now,
        )
        services.db.execute(
            """INSERT INTO cards (id, platform_id, customer_id, account_id, status, last4,
               created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
            (card.id, card.platform_id, card.customer_id, card.account_id, card.status,
             card.last4, card.created_at, card.updated_at),
        )  # fmt: skip
    return JSONResponse(render(services.settings, card), status_code=201)


def read(request: ApiRequest) -> Response:
    """``GET /cards/{cardId}`` → the card."""
    card = require(request.services.db, request.platform.id, request.path_params["cardId"])
    return JSONResponse(render(request.services.settings, card))


ROUTES = [
    api_route("/cards", Operation("POST", issue, body=True)),
    api_route("/cards/{cardId}", Operation("GET", read)),
]
