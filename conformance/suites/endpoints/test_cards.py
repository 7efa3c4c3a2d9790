"""§4 card endpoints: ``GET /transactions`` with ``cardId`` (a ``Card:`` id or the bare uuid),
``POST /cards/{id}/tokenize`` (an encrypted provisioning payload, encrypted to the wallet
provider's keys) and ``POST /sandbox/cards/{id}/simulate/return_reversal``.

Cards, their activity and the wallet SDK's values come from the adapter (not shown).
"""

from __future__ import annotations

import pytest

from conformance.cards.crypto import compact_jwes, opaque_strings, open_jwe
from conformance.cards.flows import AUTHORIZE_HOOK, CLEAR_HOOK, ISSUE_HOOK, RETURN_HOOK
from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.exchange.assertions import required_json
from conformance.ground import hookspecs

pytestmark = [
    pytest.mark.resource("CardTransaction"),
    pytest.mark.writes,
    pytest.mark.feature("cards"),
    needs_adapter_hook(ISSUE_HOOK),
]

SECTION = clauses.CARDS_AGENTS_SANDBOX_ENDPOINTS
TOKENIZE_BODY_HOOK = hookspecs.pytest_conformance_card_tokenize_body
PROVIDER_KEY_HOOK = hookspecs.pytest_conformance_card_wallet_provider_key


@needs_adapter_hook(AUTHORIZE_HOOK)
@needs_adapter_hook(CLEAR_HOOK)
@pytest.mark.requirement("TRANSACTIONS-CARD-ID-FILTER")
def test_card_transactions_are_listed_by_card_id_or_bare_uuid(cards):
    card = cards.issue(50_000)
    purchase_id = cards.purchase(card, 800)
    bare = card.id.split(":", 1)[-1]
    by_id = {r.get("id") for r in cards.rows(card.id)}
    by_uuid = {r.get("id") for r in cards.rows(bare)}
    check(
        purchase_id in by_id and by_uuid == by_id,
        clauses.QUOTES_ENDPOINTS + " — GET /transactions",
        "the cardId filter takes a Card: id or the bare uuid, with the same result",
        expected={"cardId=Card:<uuid>": sorted(map(str, by_id)), "includes": purchase_id},
        observed={"cardId=<uuid>": sorted(map(str, by_uuid))},
    )


@needs_adapter_hook(TOKENIZE_BODY_HOOK)
@pytest.mark.requirement("CARD-TOKENIZE")
def test_tokenize_answers_a_payload_encrypted_to_the_wallet_provider(
    cards, adapter, client, profile, pytestconfig
):
    card = cards.issue(1_000)
    body = adapter.call(TOKENIZE_BODY_HOOK, card_id=card.id)
    response = client.post(f"/cards/{card.id}/tokenize", json=body)
    clause = f"{SECTION} — POST /cards/{{id}}/tokenize"
    answer = required_json(
        response,
        clause,
        "tokenizing a card with a wallet SDK's values returns the encrypted provisioning payload",
    )
    check(
        bool(opaque_strings(answer, sent=body)),
        clause,
        "the answer carries an encrypted provisioning payload (an opaque value)",
        observed=answer,
        exchange=response.exchange,
    )
    key = pytestconfig.hook.pytest_conformance_card_wallet_provider_key(profile=profile)
    if key is None:
        return  # only the structure can be judged without the provider's test key
    outcomes = [open_jwe(token, str(key)) for token in compact_jwes(answer)]
    opened = [plain for plain, _ in outcomes if plain]
    check(
        bool(opened),
        clause,
        "the provisioning payload is encrypted to the wallet provider's keys: it opens with "
        "the provider's test key the adapter gave",
        observed=[why for _, why in outcomes] or "no compact JWE in the answer",
        hint="the suite opens a compact JWE (RSA-OAEP-256 + A256GCM) with the key from "
        f"{PROVIDER_KEY_HOOK.__name__}",
        exchange=response.exchange,
    )


@needs_adapter_hook(AUTHORIZE_HOOK)
@needs_adapter_hook(CLEAR_HOOK)
@needs_adapter_hook(RETURN_HOOK)
@pytest.mark.requirement("CARD-SIMULATE-RETURN-REVERSAL")
def test_return_reversal_simulates_the_reversal_of_a_posted_return(cards, client, profile):
    card = cards.issue(50_000)
    purchase_id = cards.purchase(card, 2_000)
    cards.merchant_return(card, purchase_id, 700)
    before_rows = cards.rows(card.id)
    refunds = [r for r in before_rows if r.get("originalTransactionId") == purchase_id]
    if not refunds or not isinstance(refunds[0].get("id"), str):
        pytest.skip("no refund row is listed for the return (checked by CARD-RETURN-OWN-ROW)")
    refund = refunds[0]
    balance = cards.funding.account_balances(card.customer_id, card.account_id).total
    response = client.post(
        f"/sandbox/cards/{card.id}/simulate/return_reversal",
        json={profile.field_name("card_return_reversal_id"): refund["id"]},
    )
    clause = f"{SECTION} — POST /sandbox/cards/{{id}}/simulate/return_reversal"
    check(
        200 <= response.status < 300,
        clause,
        "with the id of a posted refund row it simulates the reversal of that return",
        expected="2xx",
        observed=(response.status, response.content[:300]),
        exchange=response.exchange,
    )
    # How a reversed return shows is not shown: its row's state changes, a row is added, or
    # the credit is taken back; the simulation must have at least one of these effects.
    after_rows = cards.rows(card.id)
    row_now: dict[str, object] = next((r for r in after_rows if r.get("id") == refund["id"]), {})
    effects = {
        "refund row status": (refund.get("status"), row_now.get("status")),
        "card rows": (len(before_rows), len(after_rows)),
        "funding total balance": (
            balance,
            cards.funding.account_balances(card.customer_id, card.account_id).total,
        ),
    }
    check(
        any(before != after for before, after in effects.values()),
        clause,
        "the reversal of the return is simulated: the refund row, the card's rows or the "
        "funding account show it",
        observed={k: f"{b} -> {a}" for k, (b, a) in effects.items()},
        exchange=response.exchange,
    )
