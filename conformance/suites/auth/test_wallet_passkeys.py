"""§5 Authentication — embedded wallet, item 2: passkeys.

WebAuthn registration, then challenge and assertion; verify checks the credential id, the
challenge, the origin and relying party, user presence, the signature and the counter.
Each hostile assertion comes from the suite's own authenticator with one knob turned and
must be refused with 401, handing out no session key. A counter that does not advance
is tested from a positive value only (WebAuthn lets authenticators without a counter
send 0)."""

from __future__ import annotations

import pytest

from conformance.wallet.authenticator import Tamper, b64url
from conformance.wallet.flows import item
from conformance.wallet.keys import WalletKey

pytestmark = [
    pytest.mark.resource("Authentication"),
    pytest.mark.writes,
    pytest.mark.feature("embedded-wallet"),
]


@pytest.fixture(scope="module")
def passkey(embedded_wallet):
    """A customer whose first credential is a passkey of the suite's authenticator."""
    customer = embedded_wallet.customer()
    return embedded_wallet.credential(customer, "PASSKEY")


@pytest.mark.requirement("WALLET-PASSKEY-REGISTRATION", "WALLET-PASSKEY-VERIFY-CHECKS")
def test_a_registered_passkey_is_challenged_and_asserted_into_a_session(embedded_wallet):
    customer = embedded_wallet.customer()
    credential = embedded_wallet.credential(customer, "PASSKEY")
    first = embedded_wallet.passkey_session(credential)
    second = embedded_wallet.passkey_session(credential)  # the counter advanced again
    assert first.key.public_hex() != second.key.public_hex()


HOSTILE = {
    "wrong challenge": (Tamper(challenge=b64url(b"a challenge the target never issued")),
                        "the challenge"),
    "wrong origin": (Tamper(origin="https://evil.example.com"), "the origin"),
    "wrong RP id hash": (Tamper(rp_id="evil.example.com"), "the relying party (RP id hash)"),
    "user presence cleared": (Tamper(user_present=False), "user presence"),
    "bad signature": (Tamper(bad_signature=True), "the signature"),
}  # fmt: skip


@pytest.mark.requirement("WALLET-PASSKEY-VERIFY-CHECKS")
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_assertion_is_refused(embedded_wallet, passkey, case):
    tamper, check_name = HOSTILE[case]
    challenge, request_id = embedded_wallet.passkey_challenge(passkey, WalletKey.generate())
    response = embedded_wallet.passkey_verify(passkey, challenge, request_id, tamper)
    embedded_wallet.refused(
        response,
        item(2),
        f"passkey verify validates {check_name}: an assertion with the {case} is refused",
    )


@pytest.mark.requirement("WALLET-PASSKEY-VERIFY-CHECKS")
def test_an_assertion_whose_counter_does_not_increase_is_refused(embedded_wallet, passkey):
    """An honest assertion first (the target stores its counter), then one repeating it."""
    embedded_wallet.passkey_session(passkey)
    stored = passkey.authenticator.counter
    challenge, request_id = embedded_wallet.passkey_challenge(passkey, WalletKey.generate())
    response = embedded_wallet.passkey_verify(
        passkey, challenge, request_id, Tamper(counter=stored)
    )
    embedded_wallet.refused(
        response,
        item(2),
        f"passkey verify validates the signature counter: after {stored}, an assertion with "
        f"counter {stored} again is refused",
    )


@pytest.mark.requirement("WALLET-PASSKEY-VERIFY-CHECKS")
def test_an_assertion_by_an_unknown_credential_is_refused(embedded_wallet, passkey):
    challenge, request_id = embedded_wallet.passkey_challenge(passkey, WalletKey.generate())
    unknown = Tamper(credential_id=b64url(b"a credential never registered"))
    response = embedded_wallet.passkey_verify(passkey, challenge, request_id, unknown)
    embedded_wallet.refused(
        response,
        item(2),
        "passkey verify validates the credential id: an assertion naming an unknown "
        "credential is refused",
    )


@pytest.mark.requirement("WALLET-SANDBOX-LEGACY-LITERALS")
def test_the_legacy_passkey_signature_literal_is_still_accepted(embedded_wallet, passkey):
    client_key = WalletKey.generate()
    challenge, request_id = embedded_wallet.passkey_challenge(passkey, client_key)
    assertion = passkey.authenticator.assertion(challenge)
    assertion["signature"] = "sandbox-valid-passkey-signature"
    response = embedded_wallet.passkey_verify(passkey, challenge, request_id, assertion=assertion)
    embedded_wallet.accepted(
        response,
        item(5),
        "the sandbox still accepts the legacy literal sandbox-valid-passkey-signature as a "
        "passkey assertion's signature",
    )
    embedded_wallet.session_key(response, client_key, "the passkey verify (legacy literal)")
