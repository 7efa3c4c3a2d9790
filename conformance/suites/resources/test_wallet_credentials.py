"""§2 InternalAccount (the wallet privacy flag) and §4 auth rows (credential types): the
shapes of embedded-wallet records. Field names the interface does not show come from the
wallet format (``privacy_field``; default the reference's ``privateEnabled``)."""

from __future__ import annotations

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.wallet.flows import ENDPOINT
from conformance.wallet.operations import WALLET_TYPE

pytestmark = [
    pytest.mark.resource("Authentication"),
    pytest.mark.writes,
    pytest.mark.feature("embedded-wallet"),
]


@pytest.mark.requirement("WALLET-CREDENTIAL-TYPES")
@pytest.mark.parametrize("kind", ["EMAIL_OTP", "SMS_OTP", "PASSKEY", "OAUTH"])
def test_each_credential_type_is_accepted_and_named_as_sent(embedded_wallet, kind):
    """The credential's type, where the answer names one, is the type registered."""
    customer = embedded_wallet.customer()
    credential = embedded_wallet.credential(customer, kind)
    shown = credential.body.get("type")
    check(
        shown is None or shown == kind,
        ENDPOINT["register"],
        "a credential's type is one of EMAIL_OTP, SMS_OTP, PASSKEY, OAUTH: the one registered",
        expected=kind,
        observed=shown,
    )


@pytest.mark.requirement("INTERNAL-ACCOUNT-PRIVACY-FLAG-WALLET-ONLY")
def test_the_privacy_flag_appears_only_on_embedded_wallet_accounts(embedded_wallet, funding):
    customer = embedded_wallet.customer()
    embedded_wallet.credential(customer, "EMAIL_OTP")
    embedded_wallet.wallet_account(customer["id"])  # skips unless the customer has one
    field = embedded_wallet.format.privacy_field
    flagged = [
        (account.get("type"), account.get("id"))
        for account in funding.internal_accounts(customer["id"])
        if account.get("type") != WALLET_TYPE and field in account
    ]
    check(
        not flagged,
        clauses.INTERNAL_ACCOUNT,
        f"the wallet privacy flag ({field}) appears only on EMBEDDED_WALLET accounts",
        expected="no other account type carries it",
        observed=flagged,
        hint="a target naming the flag otherwise sets privacy_field through "
        "pytest_conformance_wallet_format",
    )
