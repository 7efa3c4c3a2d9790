"""§2 Quote — the ``scaChallenge`` a quote carries while it awaits authorization:
``{id, expiresAt, factor, availableFactors, purpose}``. Factors and purposes are the ones
seen (``SMS_OTP``, ``PASSKEY``; ``PAYOUT``), so others pass with an advisory. A
just-in-time quote withholds its ``paymentInstructions`` until the challenge is satisfied."""

from __future__ import annotations

import re

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.ground.timestamps import parse_timestamp
from conformance.payments.transfer_flows import Transfers
from conformance.sca.flows import LOGIN_HOOK, PROOF_HOOK, challenge_of

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = clauses.QUOTE
UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
FACTORS_SEEN = ("SMS_OTP", "PASSKEY")


@pytest.mark.requirement("SCA-CHALLENGE-SHAPE")
def test_an_sca_challenge_has_the_documented_shape(sca, advisory):
    wallet = sca.wallet(("EUR",))
    quote = sca.challenged(wallet)
    challenge = challenge_of(quote) or {}
    factors = challenge.get("availableFactors") or []
    check(
        re.fullmatch(rf"ScaChallenge:{UUID}", str(challenge.get("id")))
        and parse_timestamp(challenge.get("expiresAt")) is not None
        and isinstance(challenge.get("factor"), str)
        and isinstance(factors, list)
        and all(isinstance(f, str) for f in factors)
        and isinstance(challenge.get("purpose"), str),
        CLAUSE,
        "scaChallenge is {id: ScaChallenge:<uuid>, expiresAt: timestamp, factor, "
        "availableFactors: [factor], purpose}",
        observed=challenge,
    )
    check(
        challenge["factor"] in factors,
        CLAUSE,
        "the challenge's factor is one of its availableFactors",
        expected=factors,
        observed=challenge["factor"],
    )
    unseen = sorted({challenge["factor"], *factors} - set(FACTORS_SEEN))
    if unseen:
        advisory(f"{CLAUSE}: scaChallenge factors not seen by the interface: {unseen}")
    if challenge["purpose"] != "PAYOUT":
        advisory(f"{CLAUSE}: a same-currency transfer's first purpose is {challenge['purpose']!r}")


def _challenged_jit_quote(sca, wallet):
    """An SCA customer's EUR quote funded just in time (§2 Quote source REALTIME_FUNDING),
    which must await authorization with no paymentInstructions."""
    body = Transfers.jit_body(wallet.customer_id, "EUR", wallet.destinations["EUR"]["id"])
    quote = sca.quotes.quote(body)
    if quote.get("status") != "PENDING_AUTHORIZATION":
        pytest.skip(
            "the target did not challenge the SCA customer's just-in-time quote at creation "
            f"(status {quote.get('status')!r}), so no instructions wait on a challenge"
        )
    check(
        not quote.get("paymentInstructions"),
        CLAUSE,
        "a just-in-time quote withholds its paymentInstructions until the SCA challenge is "
        "satisfied",
        expected="no paymentInstructions",
        observed=quote.get("paymentInstructions"),
    )
    return quote


@pytest.mark.requirement("SCA-PAYMENT-INSTRUCTIONS-WITHHELD")
def test_a_just_in_time_quote_withholds_its_instructions_while_challenged(sca):
    _challenged_jit_quote(sca, sca.wallet(("EUR",)))


@needs_adapter_hook(LOGIN_HOOK, PROOF_HOOK)
@pytest.mark.requirement("SCA-PAYMENT-INSTRUCTIONS-WITHHELD")
def test_a_just_in_time_quote_shows_its_instructions_once_authorized(sca):
    wallet = sca.wallet(("EUR",))
    sca.login_ok(wallet.customer_id)
    quote = _challenged_jit_quote(sca, wallet)
    answers = sca.authorize_all(wallet.customer_id, quote)
    check(
        bool(answers[-1].get("paymentInstructions")),
        CLAUSE,
        "once its SCA challenge is satisfied a just-in-time quote carries paymentInstructions",
        observed={k: answers[-1].get(k) for k in ("status", "paymentInstructions")},
    )
