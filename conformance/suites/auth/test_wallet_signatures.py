"""§5 Authentication — embedded wallet, items 4 and 5: the wallet signature.

A P-256 signature over the exact ``payloadToSign``, sent as ``Service-Wallet-Signature``,
is required on adding a further credential, revoking a credential or a session, the wallet
export, the privacy update and execute from an embedded wallet. Without a valid one the
operation does not take effect: each forgery below is its own test, which must see a
refusal and then find nothing changed (no credential, the credential and session still
work, no export given, the flag as it was, no money moved)."""

from __future__ import annotations

import pytest

from conformance.contract.failures import check
from conformance.wallet.flows import item
from conformance.wallet.keys import WalletKey

pytestmark = [
    pytest.mark.resource("Authentication"),
    pytest.mark.writes,
    pytest.mark.feature("embedded-wallet"),
]


class Holder:
    """A customer with an EMAIL_OTP credential, a session and its embedded wallet."""

    def __init__(self, wallet):
        self.wallet = wallet
        self.customer = wallet.customer()
        self.credential = wallet.credential(self.customer, "EMAIL_OTP")
        self.session = wallet.otp_session(self.credential)
        self.account_id = wallet.wallet_account(self.customer["id"])["id"]


@pytest.fixture(scope="module")
def holder(embedded_wallet):
    return Holder(embedded_wallet)


# forgery -> the retry's signature, from the wallet client, the session key and the payload
FORGERIES = {
    "no signature": lambda wallet, key, payload: None,
    "a signature by another key": lambda wallet, key, payload: wallet.sign(
        WalletKey.generate(), payload
    ),
    "a signature over other bytes": lambda wallet, key, payload: wallet.sign(key, payload + "x"),
}


def _forged(holder, forgery):
    make = FORGERIES[forgery]
    return {"signature": lambda payload: make(holder.wallet, holder.session.key, payload)}


# -- each operation, and how the suite sees it did not take effect ---------------------------


def _add_credential(h, forge):
    return h.wallet.add_credential(h.customer, "EMAIL_OTP", h.session.key, **forge)


def _added_nothing(h, signed):
    pass  # refused() already saw no credential handed out


def _revoke_credential(h, forge):
    return h.wallet.revoke_credential(h.credential, h.session.key, **forge)


def _credential_still_challengeable(h, signed):
    h.wallet.otp_challenge(h.credential)


def _revoke_session(h, forge):
    return h.wallet.revoke_session(h.session, h.session.key, **forge)


def _session_still_signs(h, signed):
    h.wallet.still_signs(h.session, h.account_id, "after a refused session revocation")


def _export(h, forge):
    return h.wallet.export(h.account_id, h.session.key, WalletKey.generate(), **forge)


def _exported_nothing(h, signed):
    pass  # refused() already saw no export handed out


def _set_privacy(h, forge):
    h.before = h.wallet.current_privacy(h.customer["id"], h.account_id)
    return h.wallet.set_privacy(h.account_id, not bool(h.before), h.session.key, **forge)


def _privacy_unchanged(h, signed):
    h.wallet.privacy_unchanged(h.customer["id"], h.account_id, h.before,
                               "after a refused privacy update")  # fmt: skip


OPERATIONS = {
    "POST /auth/credentials (a further credential)": (_add_credential, _added_nothing),
    "DELETE /auth/credentials/{id}": (_revoke_credential, _credential_still_challengeable),
    "DELETE /auth/sessions/{id}": (_revoke_session, _session_still_signs),
    "POST /internal-accounts/{id}/export": (_export, _exported_nothing),
    "PATCH /internal-accounts/{id}": (_set_privacy, _privacy_unchanged),
}


@pytest.mark.requirement("WALLET-SIGNATURE-REQUIRED")
@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_without_a_signature_a_wallet_operation_does_not_take_effect(holder, operation):
    perform, unchanged = OPERATIONS[operation]
    signed = perform(holder, _forged(holder, "no signature"))
    holder.wallet.refused(
        signed.answer,
        item(4),
        f"{operation} requires the wallet signature; the retry without Service-Wallet-"
        "Signature is refused",
    )
    unchanged(holder, signed)


@pytest.mark.requirement("WALLET-SIGNATURE-P256-OVER-PAYLOAD", "WALLET-SIGNATURE-REQUIRED")
@pytest.mark.parametrize("forgery", ["a signature by another key", "a signature over other bytes"])
@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_with_a_bad_signature_a_wallet_operation_does_not_take_effect(holder, operation, forgery):
    perform, unchanged = OPERATIONS[operation]
    signed = perform(holder, _forged(holder, forgery))
    holder.wallet.refused(
        signed.answer,
        item(4),
        f"the wallet signature is a P-256 signature over the exact payloadToSign by the "
        f"session key; {operation} with {forgery} is refused",
        requirement="WALLET-SIGNATURE-P256-OVER-PAYLOAD",
    )
    unchanged(holder, signed)


@pytest.mark.requirement("WALLET-SIGNATURE-REQUIRED")
def test_a_retry_with_the_request_id_of_another_operation_is_refused(holder):
    """A privacy update retried with the request id (and a valid signature of the payload)
    issued for an export: the id is bound to the operation it was issued for."""
    wallet = holder.wallet
    before = wallet.current_privacy(holder.customer["id"], holder.account_id)
    export = wallet.first_call(
        "POST", f"/internal-accounts/{holder.account_id}/export",
        {"targetPublicKey": WalletKey.generate().public_hex()},
    )  # fmt: skip
    payload, request_id = wallet.signature_challenge(export, "the wallet export")
    signed = wallet.set_privacy(
        holder.account_id, not bool(before), None,
        signature=lambda _: wallet.sign(holder.session.key, payload),
        request_id=lambda _: request_id,
    )  # fmt: skip
    wallet.refused(signed.answer, item(4), "a request id issued for another operation is refused")
    wallet.privacy_unchanged(holder.customer["id"], holder.account_id, before,
                             "after a retry with another operation's request id")  # fmt: skip


@pytest.mark.requirement("WALLET-SANDBOX-LEGACY-LITERALS")
def test_the_legacy_wallet_signature_literal_is_still_accepted(holder):
    wallet = holder.wallet
    current = wallet.current_privacy(holder.customer["id"], holder.account_id)
    signed = wallet.set_privacy(
        holder.account_id, bool(current), None, signature=lambda _: "sandbox-valid-signature"
    )
    wallet.accepted(
        signed.answer,
        item(5),
        "the sandbox still accepts the legacy literal sandbox-valid-signature as a wallet "
        "signature",
    )


# -- execute from an embedded wallet ---------------------------------------------------------


@pytest.mark.requirement("WALLET-SIGNATURE-REQUIRED-EXECUTE")
def test_execute_from_an_embedded_wallet_signed_by_the_session_executes(holder):
    wallet = holder.wallet
    quote, _ = wallet.wallet_quote(holder.customer)
    signed = wallet.execute(quote["id"], holder.session.key)
    check(
        200 <= signed.answer.status < 300,
        item(4),
        "execute of a quote from an EMBEDDED_WALLET account, retried with the session's "
        "wallet signature, executes",
        expected="2xx",
        observed=(signed.answer.status, signed.answer.content[:200]),
        exchange=signed.answer.exchange,
    )


@pytest.mark.requirement("WALLET-SIGNATURE-REQUIRED-EXECUTE")
@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_execute_from_an_embedded_wallet_without_a_valid_signature_moves_no_money(holder, forgery):
    wallet = holder.wallet
    quote, account_id = wallet.wallet_quote(holder.customer)
    before = wallet.funding.account_balances(holder.customer["id"], account_id)
    signed = wallet.execute(quote["id"], None, **_forged(holder, forgery))
    wallet.refused(
        signed.answer,
        item(4),
        f"an outbound transfer from an EMBEDDED_WALLET account needs the session signature; "
        f"execute with {forgery} is refused",
    )
    after = wallet.funding.account_balances(holder.customer["id"], account_id)
    check(
        after == before,
        item(4),
        f"execute with {forgery} moves no money: the wallet's balances are unchanged",
        expected=before,
        observed=after,
    )
