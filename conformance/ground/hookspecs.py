"""Adapter hooks: triggers the interface names but does not show.

A target's adapter module (``--adapter``) implements any of these; tests that need a hook
the adapter lacks are skipped with the hook's name. Each hook receives the session's
``TargetProfile`` so an adapter can reach the target with the same credentials.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

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
    profile: Any, card_id: str, amount: int, currency: str, merchant: dict[str, str]
) -> dict[str, Any] | None:
    """Simulate a card authorization of ``amount`` at ``merchant`` (as the network reports
    it: ``name``, ``city``, ``state``, ``country``); return the card transaction, declined or
    approved (§4: simulators not shown)."""


@hookspec(firstresult=True)
def pytest_conformance_clear_card_transaction(
    profile: Any, card_id: str, transaction_id: str
) -> dict[str, Any] | None:
    """Clear an approved authorization in full; return the card transaction."""


@hookspec(firstresult=True)
def pytest_conformance_reverse_card_authorization(
    profile: Any, card_id: str, transaction_id: str
) -> dict[str, Any] | None:
    """Reverse an approved authorization in full before clearing; return the transaction."""


@hookspec(firstresult=True)
def pytest_conformance_expire_card_authorization(
    profile: Any, card_id: str, transaction_id: str
) -> dict[str, Any] | None:
    """Have an approved authorization expire before clearing; return the transaction."""


@hookspec(firstresult=True)
def pytest_conformance_card_merchant_return(
    profile: Any, card_id: str, transaction_id: str, amount: int
) -> dict[str, Any] | None:
    """Have the merchant return ``amount`` of a settled purchase; return the refund row."""


@hookspec(firstresult=True)
def pytest_conformance_card_tokenize_body(profile: Any, card_id: str) -> dict[str, Any] | None:
    """The ``POST /cards/{id}/tokenize`` body: values a digital-wallet SDK produces (§4:
    their names are not shown)."""


@hookspec(firstresult=True)
def pytest_conformance_card_wallet_provider_key(profile: Any) -> str | None:
    """The private key (PEM) of the test wallet provider the sandbox encrypts provisioning
    payloads to; with it the suite decrypts the payload (a compact JWE, RSA-OAEP-256 +
    A256GCM). Without it only the payload's structure is checked."""


@hookspec(firstresult=True)
def pytest_conformance_agent_device_code(profile: Any, customer_id: str) -> str | None:
    """Create an agent for a customer and return a device code to redeem (§4: not shown)."""


@hookspec(firstresult=True)
def pytest_conformance_agent_forbidden_request(
    profile: Any, customer_id: str
) -> dict[str, Any] | None:
    """A request about the customer that the policy of an agent made by
    ``pytest_conformance_agent_device_code`` does not allow: ``{method, path, json?}`` with
    ``path`` relative to the base URL (§4: agent policies are not shown)."""


@hookspec(firstresult=True)
def pytest_conformance_failing_account_number(profile: Any, currency: str) -> str | None:
    """Return an external account number whose payouts fail (§4: outcome of other suffixes
    not shown), so failure and refund flows can be walked. §4 applies an identifier's
    scenario "whenever the account is a pull source or payout destination", so a pull from
    it fails too."""


@hookspec(firstresult=True)
def pytest_conformance_sweep_rule(
    profile: Any, customer_id: str, destination_account_id: str
) -> dict[str, Any] | None:
    """Return the ``sweepRule`` of a rule-based account that sweeps every incoming payment
    to the customer's internal account ``destination_account_id`` (§2 InternalAccount:
    its inner structure is not shown)."""


@hookspec(firstresult=True)
def pytest_conformance_ownership_pending_account_number(profile: Any, currency: str) -> str | None:
    """Return an external account number whose account starts
    ``PENDING_OWNERSHIP_VERIFICATION`` (§3 External account: which accounts need ownership
    verification is not shown)."""


@hookspec(firstresult=True)
def pytest_conformance_ownership_proof(
    profile: Any, account: dict[str, Any], challenge: dict[str, Any], valid: bool
) -> dict[str, Any] | None:
    """Return the body for ``POST /customers/external-accounts/{id}/verify`` answering
    ``challenge`` (the body of ``.../challenge``) for the external ``account``: a proof of
    ownership when ``valid``, a failing one otherwise (§4 Accounts: bodies not shown)."""


@hookspec(firstresult=True)
def pytest_conformance_return_incoming_payment(
    profile: Any, account_id: str, amount: int, currency: str
) -> dict[str, Any] | None:
    """Make a deposit of ``amount`` arrive at the internal account ``account_id`` and be
    returned to its sender; return the incoming Transaction (§3, §6: a returned incoming
    deposit is refunded; no trigger shown)."""


@hookspec(firstresult=True)
def pytest_conformance_transaction_limits(profile: Any, currency: str) -> dict[str, int] | None:
    """Return the target's limits in ``currency``'s smallest unit (§8 Limits: enforced,
    values not published): ``{"size": <largest totalSendingAmount of one transaction>,
    "daily": <largest sum of sending amounts a customer executes in a UTC day>}``."""


@hookspec(firstresult=True)
def pytest_conformance_refuse_quote_rate(profile: Any, quote_id: str) -> bool | None:
    """Make the target refuse the rate of a ``PENDING`` quote when it is next executed
    (§3: a rate refused at execution; no trigger shown); return True when set up."""


@hookspec(firstresult=True)
def pytest_conformance_held_account_number(profile: Any, currency: str) -> str | None:
    """Return an external account number whose payouts are held for compliance review
    (§2 Transaction pendingReason; no trigger shown): the transaction stays PENDING or
    PROCESSING with a pendingReason."""


@hookspec(firstresult=True)
def pytest_conformance_sca_login_body(profile: Any, customer_id: str) -> dict[str, Any] | None:
    """Return the body of ``POST /sca/login/complete`` that opens an SCA session for the
    customer (§4: the request and its proof are not shown); the suite sends it itself."""


@hookspec(firstresult=True)
def pytest_conformance_sca_proof(
    profile: Any, customer_id: str, challenge: dict[str, Any], valid: bool
) -> dict[str, Any] | None:
    """Return the body of ``POST /quotes/{quoteId}/authorize`` answering ``challenge`` (the
    quote's ``scaChallenge``): a valid proof when ``valid``, a wrong one otherwise (§4: the
    code's delivery and the other proofs are not shown)."""


@hookspec(firstresult=True)
def pytest_conformance_pay_instructions(
    profile: Any, quote_id: str, reference: str, currency: str, amount: int
) -> dict[str, Any] | None:
    """Pay ``amount`` of ``currency`` into the just-in-time quote's ``paymentInstructions``
    with ``reference`` as the payment's reference (the quote's own, or a wrong one); return
    the target's answer. §4 Quotes rule 2: the exact reference triggers execution; a
    payment simulator that carries a reference is not shown."""


@hookspec(firstresult=True)
def pytest_conformance_transfer_body(
    profile: Any, direction: str, source_id: str, destination_id: str, amount: int, currency: str
) -> dict[str, Any] | None:
    """Return the body of the deprecated ``POST /transfer-<direction>`` (``in``: from an
    external account into an internal one; ``out``: the reverse) moving ``amount`` of
    ``currency`` (§9.2: shapes unchanged, but not shown)."""


@hookspec(firstresult=True)
def pytest_conformance_freeze_internal_account(profile: Any, account_id: str) -> bool | None:
    """Have a compliance or fraud signal freeze the ``ACTIVE`` internal account (§3
    Internal account: ``ACTIVE`` → ``FROZEN``; no trigger shown); return True when done."""


@hookspec(firstresult=True)
def pytest_conformance_close_internal_account(profile: Any, account_id: str) -> bool | None:
    """Have the customer close the ``ACTIVE`` internal account (§3 Internal account:
    ``ACTIVE`` → ``CLOSED``; how a customer initiates closing is not shown); return True."""


@hookspec(firstresult=True)
def pytest_conformance_fail_account_provisioning(profile: Any, account_id: str) -> bool | None:
    """Have provisioning of the ``PENDING`` internal account fail (§3 Internal account:
    ``PENDING`` → ``FAILED``; no trigger shown); return True when done."""


@hookspec(firstresult=True)
def pytest_conformance_wallet_format(profile: Any) -> dict[str, Any] | None:
    """Return overrides of the embedded-wallet encodings §5 names but does not show, keyed
    by the fields of ``conformance.wallet.format.WalletFormat`` (e.g. ``{"hpke_info":
    "my_info", "signature_encoding": "der-base64"}``); None keeps the reference's formats
    (SANDBOX.md, "Embedded wallet authentication: the reference's choices")."""


@hookspec(firstresult=True)
def pytest_conformance_create_invitation(
    profile: Any, inviter_customer_id: str
) -> dict[str, Any] | None:
    """Create an invitation from the customer; return the invitation record (§4: invitation
    paths and bodies are not shown)."""


@hookspec(firstresult=True)
def pytest_conformance_claim_invitation(
    profile: Any, invitation: dict[str, Any], customer_id: str
) -> dict[str, Any] | None:
    """Have the customer claim the invitation; return the invitation record after the claim."""


@hookspec(firstresult=True)
def pytest_conformance_other_endpoints(profile: Any) -> list[dict[str, Any]] | None:
    """Requests ``{method, path, json?}`` to endpoints the interface names but whose bodies
    it does not show (stablecoins, exchange rates, discovery, API tokens), that the target
    serves; the suite checks only what the interface states for every endpoint
    (authentication, JSON bodies, the error envelope)."""


# Every adapter hook's name, in declaration order.
ADAPTER_HOOKS: tuple[str, ...] = tuple(
    name for name in dict(globals()) if name.startswith("pytest_conformance_")
)

HookSpec = Callable[..., Any]


class HookCaller(Protocol):
    """The ``adapter`` fixture: calls a hook, skipping the test when none implements it."""

    def call(self, spec: HookSpec, **kwargs: Any) -> Any: ...


def hook_name(spec: HookSpec) -> str:
    """The name of the adapter hook ``spec``, given as an attribute of this module.

    Suites and helpers name a hook by its spec function (``hookspecs.pytest_conformance_x``),
    so a misspelt hook fails at import instead of skipping a test for a missing hook.
    """
    name = getattr(spec, "__name__", "")
    if name not in ADAPTER_HOOKS or globals()[name] is not spec:
        raise TypeError(f"{spec!r} is not an adapter hook of conformance.ground.hookspecs")
    return name
