"""Adapter hooks: triggers the interface names but does not show.

A target's adapter module (``--adapter``) implements any of these; tests that need a hook
the adapter lacks are skipped with the hook's name. Each hook receives the session's
``TargetProfile`` so an adapter can reach the target with the same credentials.
"""

from __future__ import annotations

from typing import Any

import pytest

hookspec = pytest.hookspec  # pluggy's marker, as pytest exposes it


@hookspec(firstresult=True)
def pytest_conformance_contact_verification_code(
    profile: Any, customer_id: str, channel: str
) -> str | None:
    """Return the one-time code last sent to ``channel`` (``email`` or ``phone``) of a customer.

    §4 Customers and verification: the code's delivery is not shown.
    """


@hookspec(firstresult=True)
def pytest_conformance_complete_hosted_kyc(
    profile: Any, customer_id: str, kyc_url: str
) -> bool | None:
    """Complete the hosted verification flow behind ``kyc_url``; return True when done."""


@hookspec(firstresult=True)
def pytest_conformance_simulate_incoming_uma_payment(
    profile: Any, account_id: str, amount: int, currency: str
) -> dict[str, Any] | None:
    """Simulate an incoming UMA payment to an internal account (§4: path not shown)."""


@hookspec(firstresult=True)
def pytest_conformance_issue_card(profile: Any, internal_account_id: str) -> dict[str, Any] | None:
    """Issue a card funded by an internal account (§4: card issuing not shown)."""


@hookspec(firstresult=True)
def pytest_conformance_simulate_card_authorization(
    profile: Any, card_id: str, amount: int, currency: str
) -> dict[str, Any] | None:
    """Simulate a card authorization and return the card transaction (§4: simulators not shown)."""


@hookspec(firstresult=True)
def pytest_conformance_agent_device_code(profile: Any, customer_id: str) -> str | None:
    """Create an agent for a customer and return a device code to redeem (§4: not shown)."""


@hookspec(firstresult=True)
def pytest_conformance_failing_account_number(profile: Any, currency: str) -> str | None:
    """Return an external account number whose payouts fail (§4: outcome of other suffixes
    not shown), so failure and refund flows can be walked."""


ADAPTER_HOOKS: tuple[str, ...] = (
    "pytest_conformance_contact_verification_code",
    "pytest_conformance_complete_hosted_kyc",
    "pytest_conformance_simulate_incoming_uma_payment",
    "pytest_conformance_issue_card",
    "pytest_conformance_simulate_card_authorization",
    "pytest_conformance_agent_device_code",
    "pytest_conformance_failing_account_number",
)
