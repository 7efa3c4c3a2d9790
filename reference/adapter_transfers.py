"""The reference adapter's hooks for just-in-time deposits and the deprecated transfer
endpoints (ARCHITECTURE.md, "Just-in-time funding, pull sources, UMA and on-chain
transfers"); ``reference.adapter`` re-exports them. They never import ``conformance``.
"""

from __future__ import annotations

import re
from typing import Any

import httpx

from reference import INTERFACE_VERSION

DIRECTIONS = ("in", "out")
_VERSION_SEGMENT = re.compile(r"/\d{4}-\d{2}-\d{2}$")


class TriggerRefused(RuntimeError):
    """The sandbox refused a trigger; the message carries its answer."""


def _post(profile: Any, path: str, body: dict[str, Any]) -> dict[str, Any]:
    url = str(profile.base_url).rstrip("/")
    if not _VERSION_SEGMENT.search(url):
        url = f"{url}/{INTERFACE_VERSION}"
    response = httpx.post(
        url + path,
        json=body,
        auth=(profile.client_id, profile.client_secret),
        timeout=float(getattr(profile, "request_timeout", 10.0)),
    )
    if not response.is_success:
        raise TriggerRefused(f"POST {path} answered {response.status_code}: {response.text[:500]}")
    answer: dict[str, Any] = response.json()
    return answer


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
