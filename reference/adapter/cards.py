"""The reference adapter's card hooks (SANDBOX.md, "Cards, agents and invitations");
``reference.adapter`` re-exports them.

Card issuing and every card simulator but the return reversal are not shown (§4); the
sandbox's own endpoints stand in for them. Like the rest of the adapter these reach it over
HTTP with the profile's credentials and never import ``conformance``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from reference.adapter.transport import call as _call
from reference.adapter.transport import post as _post


def _simulate(card_id: str, action: str) -> str:
    return f"/sandbox/cards/{quote(card_id, safe=':')}/simulate/{action}"


def pytest_conformance_issue_card(profile: Any, internal_account_id: str) -> dict[str, Any]:
    """``POST /cards {internalAccountId}``: the card record."""
    return _post(profile, "/cards", {"internalAccountId": internal_account_id})


def pytest_conformance_simulate_card_authorization(
    profile: Any, card_id: str, amount: int, currency: str, merchant: dict[str, str]
) -> dict[str, Any]:
    """An authorization of ``amount`` (the funding account's currency) at ``merchant``."""
    body = {"amount": amount, "currency": currency, "merchant": merchant}
    return _post(profile, _simulate(card_id, "authorization"), body)


def pytest_conformance_clear_card_transaction(
    profile: Any, card_id: str, transaction_id: str
) -> dict[str, Any]:
    """The authorization clears in full."""
    return _post(profile, _simulate(card_id, "clearing"), {"transactionId": transaction_id})


def pytest_conformance_reverse_card_authorization(
    profile: Any, card_id: str, transaction_id: str
) -> dict[str, Any]:
    """The authorization is fully reversed before clearing."""
    return _post(profile, _simulate(card_id, "reversal"), {"transactionId": transaction_id})


def pytest_conformance_expire_card_authorization(
    profile: Any, card_id: str, transaction_id: str
) -> dict[str, Any]:
    """The authorization expires before clearing."""
    return _post(profile, _simulate(card_id, "expiry"), {"transactionId": transaction_id})


def pytest_conformance_card_merchant_return(
    profile: Any, card_id: str, transaction_id: str, amount: int
) -> dict[str, Any]:
    """The merchant returns ``amount`` of a settled purchase: the refund row."""
    body = {"transactionId": transaction_id, "amount": amount}
    return _post(profile, _simulate(card_id, "return"), body)


def pytest_conformance_card_tokenize_body(profile: Any, card_id: str) -> dict[str, Any]:
    """Values a wallet SDK produces, as the sandbox takes them."""
    return {
        "walletProvider": "GOOGLE_PAY",
        "deviceId": "sandbox-device-0001",
        "walletAccountId": "sandbox-wallet-account-0001",
        "nonce": "c2FuZGJveC1ub25jZQ",
    }


def pytest_conformance_card_wallet_provider_key(profile: Any) -> str:
    """The sandbox wallet provider's private test key (PEM), from
    ``GET /sandbox/cards/wallet-provider-key``."""
    return str(_call(profile, "GET", "/sandbox/cards/wallet-provider-key").member("privateKeyPem"))
