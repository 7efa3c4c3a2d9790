"""The reference adapter's hooks for rule-based accounts, external-account ownership and
returned incoming deposits (SANDBOX.md, "Rule-based accounts, ownership verification,
payout scenarios and incoming payments"); ``reference.adapter`` re-exports them.

Like the rest of the adapter they reach the sandbox over HTTP with the profile's
credentials, through sandbox-only endpoints, and never import ``conformance``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from reference.adapter.transport import member as _member
from reference.adapter.transport import post as _post


def pytest_conformance_sweep_rule(
    profile: Any, customer_id: str, destination_account_id: str
) -> dict[str, Any]:
    """The reference's sweep rule: ``{destinationAccountId}``."""
    return {"destinationAccountId": destination_account_id}


# An identifier ending in 008 starts PENDING_OWNERSHIP_VERIFICATION (our choice).
OWNERSHIP_PENDING_SUFFIX = "008"
_IDENTIFIERS = {
    "USD": "000123456",  # US_ACCOUNT accountNumber
    "MXN": "002010077777777",  # CLABE_ACCOUNT clabe (18 digits)
    "USDC": "0x" + "0" * 37,  # WALLET address
}
_IBAN = "GB29NWBK60161331926"  # IBAN_ACCOUNT iban, other fiat


def pytest_conformance_ownership_pending_account_number(profile: Any, currency: str) -> str:
    """An identifier ending in ``008``: a US account number for USD, a CLABE for MXN, a
    wallet address for USDC, an IBAN otherwise."""
    return _IDENTIFIERS.get(currency.upper(), _IBAN) + OWNERSHIP_PENDING_SUFFIX


def pytest_conformance_ownership_proof(
    profile: Any, account: dict[str, Any], challenge: dict[str, Any], valid: bool
) -> dict[str, Any]:
    """``{signature}``: the sandbox wallet key of the account signs ``payloadToSign``
    (``POST /sandbox/external-accounts/{id}/sign``); a failing proof is its signature over
    other bytes."""
    payload = str(_member(challenge, "payloadToSign", "the ownership challenge"))
    signed = payload if valid else payload + ":tampered"
    account_id = _member(account, "id", "the external account")
    path = f"/sandbox/external-accounts/{quote(str(account_id), safe=':')}/sign"
    signed_answer = _post(profile, path, {"payload": signed})
    signature = _member(signed_answer, "signature", f"the answer to POST {path}")
    return {"signature": signature}


def pytest_conformance_return_incoming_payment(
    profile: Any, account_id: str, amount: int, currency: str
) -> dict[str, Any]:
    """A deposit arrives and is returned, with the sandbox's
    ``POST /sandbox/internal-accounts/{id}/returned-deposit {amount}``; the Transaction."""
    path = f"/sandbox/internal-accounts/{quote(account_id, safe=':')}/returned-deposit"
    return _post(profile, path, {"amount": amount})
