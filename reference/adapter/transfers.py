"""The reference adapter's hooks for just-in-time deposits and the deprecated transfer
endpoints (SANDBOX.md, "Just-in-time funding, pull sources, UMA and on-chain
transfers"); ``reference.adapter`` re-exports them. They never import ``conformance``.
"""

from __future__ import annotations

from typing import Any

from reference.adapter.transport import post as _post

DIRECTIONS = ("in", "out")


def pytest_conformance_pay_instructions(
    profile: Any, quote_id: str, reference: str, currency: str, amount: int
) -> dict[str, Any]:
    """A deposit into the quote's instructions carrying ``reference``, through the
    sandbox's ``POST /sandbox/realtime-funding/payments``; its answer (``matched``)."""
    body = {
        "quoteId": quote_id,
        "reference": reference,
        "currencyCode": currency,
        "currencyAmount": amount,
    }
    return _post(profile, "/sandbox/realtime-funding/payments", body)


def pytest_conformance_transfer_body(
    profile: Any, direction: str, source_id: str, destination_id: str, amount: int, currency: str
) -> dict[str, Any]:
    """The sandbox's ``/transfer-in`` and ``/transfer-out`` body: ``{source: {accountId},
    destination: {accountId}, amount}`` (the currency is the accounts' own)."""
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    return {
        "source": {"accountId": source_id},
        "destination": {"accountId": destination_id},
        "amount": amount,
    }


def pytest_conformance_simulate_incoming_uma_payment(
    profile: Any, account_id: str, amount: int, currency: str
) -> dict[str, Any]:
    """An incoming UMA payment to the internal account, through the sandbox's
    ``POST /sandbox/uma/incoming-payments`` (in the account's currency); the Transaction."""
    return _post(
        profile, "/sandbox/uma/incoming-payments", {"accountId": account_id, "amount": amount}
    )
