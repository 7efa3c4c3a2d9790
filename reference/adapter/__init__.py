"""The reference sandbox's adapter for the conformance suite's hooks (DESIGN.md, "Adapters").

The suite registers this module as a pytest plugin (``--adapter reference.adapter``; the
``serve`` start-up line names it), so the hooks are plain module-level functions named as
the suite's hook specifications. They reach the sandbox over HTTP with the profile's
credentials, through sandbox-only endpoints; this module never imports ``conformance``.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, urlsplit

from reference.adapter import accounts as adapter_accounts
from reference.adapter import agents as adapter_agents
from reference.adapter import cards as adapter_cards
from reference.adapter import invitations as adapter_invitations
from reference.adapter import states as adapter_states
from reference.adapter import transfers as adapter_transfers
from reference.adapter import transport as adapter_http
from reference.adapter.transport import call as _call

# Raised when the sandbox refuses a trigger (callers catch it from here).
AdapterError = adapter_http.AdapterError

# Hooks for rule-based accounts, ownership verification and returned incoming deposits.
pytest_conformance_sweep_rule = adapter_accounts.pytest_conformance_sweep_rule
pytest_conformance_ownership_proof = adapter_accounts.pytest_conformance_ownership_proof
pytest_conformance_ownership_pending_account_number = (
    adapter_accounts.pytest_conformance_ownership_pending_account_number
)
pytest_conformance_return_incoming_payment = (
    adapter_accounts.pytest_conformance_return_incoming_payment
)
# Hooks for internal-account states: frozen, closed, failed provisioning.
pytest_conformance_freeze_internal_account = (
    adapter_states.pytest_conformance_freeze_internal_account
)
pytest_conformance_close_internal_account = adapter_states.pytest_conformance_close_internal_account
pytest_conformance_fail_account_provisioning = (
    adapter_states.pytest_conformance_fail_account_provisioning
)
# Hooks for just-in-time deposits and the deprecated transfer endpoints.
pytest_conformance_pay_instructions = adapter_transfers.pytest_conformance_pay_instructions
pytest_conformance_transfer_body = adapter_transfers.pytest_conformance_transfer_body
pytest_conformance_simulate_incoming_uma_payment = (
    adapter_transfers.pytest_conformance_simulate_incoming_uma_payment
)

# Hooks for cards: issuing, the network simulators, tokenization.
pytest_conformance_issue_card = adapter_cards.pytest_conformance_issue_card
pytest_conformance_simulate_card_authorization = (
    adapter_cards.pytest_conformance_simulate_card_authorization
)
pytest_conformance_clear_card_transaction = adapter_cards.pytest_conformance_clear_card_transaction
pytest_conformance_reverse_card_authorization = (
    adapter_cards.pytest_conformance_reverse_card_authorization
)
pytest_conformance_card_merchant_return = adapter_cards.pytest_conformance_card_merchant_return
pytest_conformance_expire_card_authorization = (
    adapter_cards.pytest_conformance_expire_card_authorization
)
pytest_conformance_card_tokenize_body = adapter_cards.pytest_conformance_card_tokenize_body
pytest_conformance_card_wallet_provider_key = (
    adapter_cards.pytest_conformance_card_wallet_provider_key
)

# Hooks for agents: a device code, a request outside the default policy.
pytest_conformance_agent_device_code = adapter_agents.pytest_conformance_agent_device_code
pytest_conformance_agent_forbidden_request = (
    adapter_agents.pytest_conformance_agent_forbidden_request
)

# Hooks for invitations: create one, have a customer claim it.
pytest_conformance_create_invitation = adapter_invitations.pytest_conformance_create_invitation
pytest_conformance_claim_invitation = adapter_invitations.pytest_conformance_claim_invitation


def pytest_conformance_other_endpoints(profile: Any) -> list[dict[str, Any]]:
    """Requests to endpoints the interface names without showing their bodies (stablecoins,
    exchange rates, discovery, API tokens) that the sandbox serves: ``GET /stablecoins``."""
    return [{"method": "GET", "path": "/stablecoins"}]


_KYC_PATH = re.compile(r"/hosted/kyc/([^/?#]+)$")
CHANNELS = ("email", "phone")


def pytest_conformance_contact_verification_code(
    profile: Any, customer_id: str, channel: str
) -> str:
    """The code last sent to the customer's ``email`` or ``phone``, from the sandbox's
    ``GET /sandbox/customers/{customerId}/contact-verification/{channel}``."""
    if channel not in CHANNELS:
        raise ValueError(f"channel must be one of {CHANNELS}, got {channel!r}")
    path = f"/sandbox/customers/{quote(customer_id, safe=':')}/contact-verification/{channel}"
    code = _call(profile, "GET", path).member("code")
    return str(code)


def pytest_conformance_complete_hosted_kyc(profile: Any, customer_id: str, kyc_url: str) -> bool:
    """Finish the hosted flow behind ``kyc_url`` with the sandbox's
    ``POST /sandbox/kyc-links/{linkId}/complete``; True once done."""
    match = _KYC_PATH.search(urlsplit(kyc_url).path)
    if match is None:
        raise ValueError(f"not a reference sandbox kycUrl: {kyc_url!r}")
    _call(profile, "POST", f"/sandbox/kyc-links/{match.group(1)}/complete")
    return True


# Payouts to an identifier ending in 099 are returned (SANDBOX.md, "External
# accounts"); one such identifier per account type, by currency.
FAILING_SUFFIX = "099"
_FAILING_IDENTIFIERS = {
    "USD": "000123456" + FAILING_SUFFIX,  # US_ACCOUNT accountNumber
    "MXN": "002010077777777" + FAILING_SUFFIX,  # CLABE_ACCOUNT clabe (18 digits)
    "USDC": "0x" + "0" * 37 + FAILING_SUFFIX,  # WALLET address
}
_FAILING_IBAN = "GB29NWBK60161331926" + FAILING_SUFFIX  # IBAN_ACCOUNT iban, other fiat


def pytest_conformance_failing_account_number(profile: Any, currency: str) -> str:
    """An external account identifier whose payouts fail: it ends in ``099``. A US account
    number for USD, a CLABE for MXN, a wallet address for USDC, an IBAN otherwise; the
    sandbox does not validate account numbers beyond their last three characters."""
    return _FAILING_IDENTIFIERS.get(currency.upper(), _FAILING_IBAN)


def pytest_conformance_transaction_limits(profile: Any, currency: str) -> dict[str, int]:
    """The sandbox's size and daily volume limits in ``currency``'s smallest unit, from its
    ``GET /sandbox/limits/{currency}`` (SANDBOX.md, "Limits, refused rates and
    compliance holds")."""
    answer = _call(profile, "GET", f"/sandbox/limits/{quote(currency.upper(), safe='')}")
    return {"size": _whole(answer, "transactionSize"), "daily": _whole(answer, "dailyVolume")}


def _whole(answer: adapter_http.Answer, name: str) -> int:
    value = answer.member(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise AdapterError(f"{answer.method} {answer.path}: {name} is {value!r}, not an integer")
    return value


def pytest_conformance_refuse_quote_rate(profile: Any, quote_id: str) -> bool:
    """Have the sandbox refuse the quote's rate at its next execute, with
    ``POST /sandbox/quotes/{quoteId}/refuse-rate``; True once set up."""
    _call(profile, "POST", f"/sandbox/quotes/{quote(quote_id, safe=':')}/refuse-rate")
    return True


# Payouts to an identifier ending in 077 are held for compliance review (our choice).
HELD_SUFFIX = "077"


def pytest_conformance_held_account_number(profile: Any, currency: str) -> str:
    """An external account identifier whose payouts are held for compliance review: as
    ``pytest_conformance_failing_account_number``, ending in ``077``."""
    return pytest_conformance_failing_account_number(profile, currency)[:-3] + HELD_SUFFIX


# SCA (SANDBOX.md, "Strong customer authentication"): the sandbox's proofs are fixed,
# as §5 fixes the OTP code, so these hooks need no call.
SCA_SANDBOX_CODE = "000000"
SCA_WRONG_CODE = "999999"


def pytest_conformance_sca_login_body(profile: Any, customer_id: str) -> dict[str, Any]:
    """``POST /sca/login/complete`` body: the customer and the sandbox's fixed code."""
    return {"customerId": customer_id, "code": SCA_SANDBOX_CODE}


def pytest_conformance_sca_proof(
    profile: Any, customer_id: str, challenge: dict[str, Any], valid: bool
) -> dict[str, Any]:
    """``POST /quotes/{quoteId}/authorize`` body: ``{code}`` for the SMS_OTP factor, the
    sandbox's fixed code when ``valid``, another one otherwise."""
    return {"code": SCA_SANDBOX_CODE if valid else SCA_WRONG_CODE}
