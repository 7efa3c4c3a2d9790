"""The embedded-wallet settings: validated at start-up, taken from the embedded sandbox's
start-up line, carried to xdist workers, and never a secret in the profile's description."""

from __future__ import annotations

import pytest

from conformance.ground.profile import TargetProfile
from conformance.ground.profile_loading import validate_profile
from conformance.run.embedded import wallet_settings
from conformance.wallet.keys import WalletKey

INFO = {
    "wallet_enclave_public_key": WalletKey.generate().public_hex(),
    "wallet_rp_id": "wallet.sandbox.example",
    "wallet_origin": "https://wallet.sandbox.example",
    "wallet_oidc_issuers": ["https://a.example", "https://b.example"],
}


def test_the_start_up_line_fills_the_wallet_settings():
    values = wallet_settings(INFO, TargetProfile(base_url=None))
    assert values == {**INFO, "wallet_oidc_issuers": ("https://a.example", "https://b.example")}


def test_settings_the_profile_gives_win_over_the_start_up_line():
    profile = TargetProfile(base_url=None, wallet_rp_id="mine.example",
                            wallet_oidc_issuers=("https://mine.example",))  # fmt: skip
    values = wallet_settings(INFO, profile)
    assert values["wallet_rp_id"] == "mine.example"
    assert values["wallet_oidc_issuers"] == ("https://mine.example",)
    assert values["wallet_origin"] == INFO["wallet_origin"]


def test_an_older_sandbox_without_the_keys_leaves_them_unset():
    values = wallet_settings({"base_url": "http://x"}, TargetProfile(base_url=None))
    assert values == dict.fromkeys(
        ("wallet_enclave_public_key", "wallet_rp_id", "wallet_origin"), None
    ) | {"wallet_oidc_issuers": ()}


def test_the_wallet_settings_survive_the_trip_to_a_worker():
    profile = TargetProfile(
        base_url="http://x/2025-10-13", **wallet_settings(INFO, TargetProfile(None))
    )
    assert TargetProfile.from_dict(profile.to_dict()) == profile
    described = profile.describe()
    assert described["wallet_rp_id"] == INFO["wallet_rp_id"]
    assert described["wallet_enclave_public_key"] is True


@pytest.mark.parametrize("key", ["not hex", "04" + "00" * 64, "05abcd"])
def test_an_enclave_key_that_is_no_p256_point_is_a_usage_error(key):
    with pytest.raises(pytest.UsageError, match="--wallet-enclave-public-key"):
        validate_profile({"wallet_enclave_public_key": key}, {})


def test_a_compressed_enclave_key_is_accepted():
    key = WalletKey.generate().public_hex(compressed=True)
    assert validate_profile({"wallet_enclave_public_key": key}, {}).wallet_enclave_public_key == key


def test_wallet_secrets_are_scrubbed_from_anything_written():
    """Keys the wallet client makes or decrypts register as secrets at once: the redactor
    scrubs them (a passkey, a TEK key, a decrypted session key)."""
    from conformance.ground.redaction import scrub
    from conformance.wallet.authenticator import SoftAuthenticator

    keys = [SoftAuthenticator("rp.example", "https://rp.example").key, WalletKey.generate()]
    keys.append(WalletKey.from_private_bytes(WalletKey.generate().private_bytes()))
    for key in keys:
        secret = key.private_bytes().hex()
        assert secret not in scrub(f"observed {secret} in a body")
