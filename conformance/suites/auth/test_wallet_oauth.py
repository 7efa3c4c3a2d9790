"""§5 Authentication — embedded wallet, items 3 and 5: OAUTH credentials.

The ``oidcToken`` is a JWT with a supported ``iss``, an ``aud`` that is a non-empty string
or a one-element array, ``sub``, a numeric ``iat`` and an ``exp`` later than the request.
The credential stores ``iss``, ``aud`` and ``sub``; a fresh token on verify must match all
three and carry ``nonce`` = SHA-256 of the exact hex ``clientPublicKey`` sent. The sandbox
skips the provider signature, so the suite signs tokens with a key of its own; every other
check still runs. Each wrong claim is its own test: refused with 401, no session key."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from conformance.wallet.flows import item
from conformance.wallet.keys import WalletKey
from conformance.wallet.tokens import Identity, nonce_for

pytestmark = [
    pytest.mark.resource("Authentication"),
    pytest.mark.writes,
    pytest.mark.feature("embedded-wallet"),
]


@pytest.fixture(scope="module")
def oauth(embedded_wallet):
    """A customer whose first credential is an OAUTH one, registered with the suite's token."""
    customer = embedded_wallet.customer()
    return embedded_wallet.credential(customer, "OAUTH")


@pytest.mark.requirement("WALLET-SANDBOX-OAUTH-SIGNATURE-SKIPPED", "WALLET-OAUTH-TOKEN-CLAIMS")
def test_a_token_not_signed_by_the_provider_registers_and_verifies_in_the_sandbox(
    embedded_wallet,
):
    """The suite's tokens are signed by its own key, never by a provider: the sandbox skips
    that signature, so registration and a fresh, bound token both succeed."""
    customer = embedded_wallet.customer()
    credential = embedded_wallet.credential(customer, "OAUTH")
    embedded_wallet.oauth_session(credential)


def _now():
    return int(time.time())


AUD_RULE = "aud is a non-empty string or a one-element array"
# case -> (the claims changed, given the credential's identity; the rule broken)
WRONG_CLAIMS: dict[str, tuple[Callable[[Identity], dict[str, Any]], str]] = {
    "unsupported iss": (lambda i: {"iss": "https://unsupported.example"},
                        "iss is a supported issuer"),
    "two-element aud": (lambda i: {"aud": [i.aud, "another-audience"]}, AUD_RULE),
    "empty aud": (lambda i: {"aud": ""}, AUD_RULE),
    "empty aud array": (lambda i: {"aud": []}, AUD_RULE),
    "exp in the past": (lambda i: {"exp": _now() - 120}, "exp is later than the request"),
    "iat not a number": (lambda i: {"iat": "recent"}, "iat is numeric"),
    "sub missing": (lambda i: {"sub": None}, "the token carries sub"),
}  # fmt: skip


@pytest.mark.requirement("WALLET-OAUTH-TOKEN-CLAIMS", "WALLET-SANDBOX-OAUTH-SIGNATURE-SKIPPED")
@pytest.mark.parametrize("case", sorted(WRONG_CLAIMS))
def test_a_token_with_one_claim_wrong_is_refused(embedded_wallet, oauth, case):
    changes, rule = WRONG_CLAIMS[case]
    response = embedded_wallet.oauth_verify(oauth, WalletKey.generate(), **changes(oauth.identity))
    embedded_wallet.refused(
        response,
        item(3),
        f"a fresh oidcToken must satisfy '{rule}'; one with {case} is refused and opens no session",
        also=(400,),
    )


@pytest.mark.requirement("WALLET-OAUTH-IDENTITY-MATCH")
@pytest.mark.parametrize("claim", ["iss", "aud", "sub"])
def test_a_token_of_another_identity_is_refused(embedded_wallet, oauth, claim):
    identity = oauth.identity
    if claim == "iss":
        others = [i for i in embedded_wallet.profile.wallet_oidc_issuers if i != identity.iss]
        if not others:
            pytest.skip("needs a second supported OIDC issuer (--wallet-oidc-issuers)")
        changes = {"iss": others[0]}
    else:
        changes = {claim: f"{getattr(identity, claim)}-other"}
    response = embedded_wallet.oauth_verify(oauth, WalletKey.generate(), **changes)
    embedded_wallet.refused(
        response,
        item(3),
        f"the credential stores iss, aud and sub; a fresh token whose {claim} differs from "
        "the stored one is refused",
    )


@pytest.mark.requirement("WALLET-OAUTH-NONCE-BINDING")
def test_a_token_whose_nonce_binds_another_key_is_refused(embedded_wallet, oauth):
    other = WalletKey.generate()
    response = embedded_wallet.oauth_verify(
        oauth, WalletKey.generate(), nonce=nonce_for(other.public_hex())
    )
    embedded_wallet.refused(
        response,
        item(3),
        "the fresh token's nonce is sha256 of the exact hex clientPublicKey sent; a nonce "
        "of another key is refused",
    )


@pytest.mark.requirement("WALLET-OAUTH-NONCE-BINDING")
def test_a_token_without_a_nonce_is_refused(embedded_wallet, oauth):
    response = embedded_wallet.oauth_verify(oauth, WalletKey.generate(), nonce=None)
    embedded_wallet.refused(
        response,
        item(3),
        "on verify the fresh token carries nonce = sha256(clientPublicKey); one without a "
        "nonce is refused",
    )


@pytest.mark.requirement("WALLET-SANDBOX-OAUTH-SIGNATURE-SKIPPED")
def test_an_unsigned_token_with_alg_none_is_refused(embedded_wallet, oauth):
    """Skipping the provider signature does not make an unsigned token acceptable: item 5
    skips its verification in the sandbox, and production verifies the provider's
    signature, which an ``alg`` ``none`` token does not have."""
    client_key = WalletKey.generate()
    claims = embedded_wallet.minter.claims(oauth.identity, nonce=nonce_for(client_key.public_hex()))
    token = embedded_wallet.minter.token(claims, alg="none")
    response = embedded_wallet.oauth_verify(oauth, client_key, token=token)
    embedded_wallet.refused(
        response,
        item(5),
        "an unsigned token (alg none) is refused even where the provider signature is not verified",
        also=(400,),
    )


@pytest.mark.requirement("WALLET-SANDBOX-OIDC-LITERAL-REFUSED")
def test_the_literal_oidc_placeholder_is_refused(embedded_wallet):
    customer = embedded_wallet.customer()
    embedded_wallet.issuer()  # the target takes OAUTH credentials at all
    response = embedded_wallet.register(
        customer["id"], "OAUTH", {"oidcToken": "sandbox-valid-oidc-token"}
    )
    embedded_wallet.refused(
        response,
        item(5),
        "the sandbox refuses the literal OIDC value: only a JWT registers an OAUTH credential",
        also=(400,),
    )
