"""The cross-check ledger's rules, fed directly: what may change and what may not."""

from __future__ import annotations

import pytest

from conformance.contract.failures import ConformanceFailure
from conformance.exchange.ledger import Ledger, Sighting
from conformance.exchange.ledger_answers import charged_disagreement

SCOPE = ("http://target", "token-1")
TXN = "Transaction:1"
QUOTE = "Quote:1"


def answer(sent: float, read: float, path: str = "GET /x", test: str = "test_it") -> Sighting:
    method, target = path.split(" ", 1)
    return Sighting(method, target, 200, test, 1_700_000_000.0 + read, sent, read)


def event() -> Sighting:
    return Sighting("WEBHOOK", "OUTGOING_PAYMENT.COMPLETED Webhook:1", None, None, 1.8e9)


def transaction(status: str = "PROCESSING", amount: int = 100, **fields: object) -> dict:
    money = {"amount": amount, "currency": {"code": "USD", "decimals": 2}}
    return {"id": TXN, "status": status, "quoteId": QUOTE, "sentAmount": money, **fields}


@pytest.fixture
def ledger() -> Ledger:
    return Ledger()


def test_a_fixed_field_stated_twice_differently_fails_naming_both(ledger: Ledger) -> None:
    assert ledger.observe(SCOPE, transaction(), answer(0, 1, "GET /transactions")) == []
    [found] = ledger.observe(SCOPE, transaction(amount=101), event(), event=True)
    assert (found.field, found.before, found.after) == ("sentAmount.amount", 100, 101)
    failure = found.failure()
    assert isinstance(failure, ConformanceFailure)
    assert failure.clause == "§6 Events"
    assert "GET /transactions -> 200" in str(failure) and "Webhook:1" in str(failure)
    assert ledger.comparisons > 0


def test_fields_the_interface_leaves_free_are_never_compared(ledger: Ledger) -> None:
    ledger.observe(SCOPE, transaction(description="a", settledAt=None), answer(0, 1))
    later = transaction(description="b", settledAt="2026-01-01T00:00:00Z", refund={"x": 1})
    assert ledger.observe(SCOPE, later, answer(2, 3)) == []
    # absent in one view is no disagreement
    assert ledger.observe(SCOPE, {"id": TXN, "status": "PROCESSING"}, answer(4, 5)) == []


def test_one_instant_written_two_ways_is_one_value(ledger: Ledger) -> None:
    ledger.observe(SCOPE, transaction(createdAt="2026-01-01T00:00:00Z"), answer(0, 1))
    same = transaction(createdAt="2026-01-01T00:00:00.000+00:00")
    assert ledger.observe(SCOPE, same, answer(2, 3)) == []
    [moved] = ledger.observe(SCOPE, transaction(createdAt="2026-01-01T00:00:01Z"), answer(4, 5))
    assert moved.field == "createdAt"


def test_a_status_moves_only_forward_between_ordered_answers(ledger: Ledger) -> None:
    ledger.observe(SCOPE, transaction("COMPLETED"), answer(0, 1))
    # a request sent before that answer was read has no order with it
    assert ledger.observe(SCOPE, transaction("PROCESSING"), answer(0.5, 2)) == []
    # an event states a moment the sink cannot place among answers
    assert ledger.observe(SCOPE, transaction("PROCESSING"), event(), event=True) == []
    [back] = ledger.observe(SCOPE, transaction("PROCESSING"), answer(3, 4))
    assert (back.clause, back.before, back.after) == (
        "§3 Quote and transaction",
        "COMPLETED",
        "PROCESSING",
    )


@pytest.mark.parametrize(
    ("body", "before", "after", "fails"),
    [
        ({"id": "Customer:1"}, {"kycStatus": "APPROVED"}, {"kycStatus": "PENDING"}, True),
        ({"id": "Customer:1"}, {"kycStatus": "PENDING"}, {"kycStatus": "UNVERIFIED"}, False),
        ({"id": "Customer:1"}, {"kycStatus": "APPROVED"}, {"kycStatus": "SOMETHING"}, False),
        ({"id": "Quote:9"}, {"status": "PENDING_AUTHORIZATION"}, {"status": "PENDING"}, False),
        ({"id": "Quote:9"}, {"status": "EXPIRED"}, {"status": "PROCESSING"}, True),
        ({"id": "InternalAccount:1"}, {"status": "ACTIVE"}, {"status": "PENDING"}, True),
        ({"id": "InternalAccount:1"}, {"status": "FAILED"}, {"status": "ACTIVE"}, False),
    ],
)
def test_status_rules_follow_what_section_3_shows(
    ledger: Ledger, body: dict, before: dict, after: dict, fails: bool
) -> None:
    ledger.observe(SCOPE, {**body, **before}, answer(0, 1))
    assert bool(ledger.observe(SCOPE, {**body, **after}, answer(2, 3))) is fails


def test_consents_once_stated_stay_and_never_go_back(ledger: Ledger) -> None:
    def customer(*consents: tuple[str, str]) -> dict:
        entries = [{"type": kind, "acceptedAt": at} for kind, at in consents]
        return {"id": "Customer:1", "agreementConsents": entries}

    terms = ("TERMS", "2026-01-01T00:00:00Z")
    ledger.observe(SCOPE, customer(terms), answer(0, 1))
    assert (
        ledger.observe(SCOPE, customer(terms, ("PRIVACY", "2026-01-02T00:00:00Z")), answer(2, 3))
        == []
    )
    [gone] = ledger.observe(SCOPE, customer(("PRIVACY", "2026-01-02T00:00:00Z")), answer(4, 5))
    assert gone.clause == "§2 Customer" and "['TERMS'] are gone" in gone.statement


def test_a_quote_and_its_transaction_state_one_amount(ledger: Ledger) -> None:
    quote = {"id": QUOTE, "transactionId": TXN, "totalSendingAmount": 100}
    quote["sendingCurrency"] = {"code": "USD", "decimals": 2}
    ledger.observe(SCOPE, quote, answer(0, 1, "POST /quotes"))
    assert ledger.observe(SCOPE, transaction(amount=100), answer(2, 3)) == []
    ledger.clear()
    ledger.observe(SCOPE, quote, answer(0, 1, "POST /quotes"))
    [found] = ledger.observe(SCOPE, transaction(amount=99), answer(2, 3))
    assert found.field == "sentAmount.amount / totalSendingAmount"
    assert (found.before, found.after) == (100, 99)
    # charged to the rule that states it, whichever test read the transaction: one cause
    failure = charged_disagreement(found, "transaction", None)  # type: ignore[arg-type]
    assert failure.charged_to == "FEES-FIXED-FOR-QUOTE-LIFE"
    assert failure.cause is not None and "Transaction:1" in failure.cause  # steadied later
    assert "TRANSACTION-AMOUNT-OBJECTS" in failure.owners  # names `sentAmount`: its own too


def test_a_disagreement_no_rule_charges_stays_the_reading_test_s_own(ledger: Ledger) -> None:
    ledger.observe(SCOPE, transaction(status="COMPLETED"), answer(0, 1))
    [found] = ledger.observe(SCOPE, transaction(status="PROCESSING"), answer(2, 3))
    failure = charged_disagreement(found, "transaction", None)  # type: ignore[arg-type]
    assert failure.charged_to is None and failure.cause is None


def test_a_currency_has_one_number_of_decimals_wherever_it_appears(ledger: Ledger) -> None:
    ledger.observe(SCOPE, transaction(), answer(0, 1))
    other = {"id": "Quote:2", "receivingCurrency": {"code": "USD", "decimals": 3}}
    [found] = ledger.observe(SCOPE, other, answer(2, 3))
    assert found.field == "USD decimals" and found.clause == "§0 Conventions"


def test_two_platforms_are_never_compared_and_a_disagreement_is_reported_once_per_test(
    ledger: Ledger,
) -> None:
    ledger.observe(SCOPE, transaction(), answer(0, 1))
    assert ledger.observe(("http://target", "token-2"), transaction(amount=5), answer(2, 3)) == []
    assert len(ledger.observe(SCOPE, transaction(amount=5), answer(2, 3))) == 1
    assert ledger.observe(SCOPE, transaction(amount=5), answer(4, 5)) == []
    # another test reading it right is not failed; one reading it wrong is
    assert ledger.observe(SCOPE, transaction(amount=100), answer(6, 7, test="other")) == []
    assert len(ledger.observe(SCOPE, transaction(amount=5), answer(8, 9, test="other"))) == 1


def test_a_disabled_ledger_keeps_nothing(ledger: Ledger) -> None:
    ledger.enabled = False
    ledger.observe(SCOPE, transaction(), answer(0, 1))
    assert len(ledger) == 0 and ledger.footprint() > 0


@pytest.mark.parametrize(("minutes", "fails"), [(1, False), (15, False), (20, True)])
def test_every_statement_of_a_quote_lives_up_to_15_minutes(ledger, minutes, fails) -> None:
    """§8, in each statement alone: the quote immediatelyExecute returned included."""
    quote = {
        "id": QUOTE,
        "status": "COMPLETED",
        "createdAt": "2026-01-01T00:00:00Z",
        "expiresAt": f"2026-01-01T00:{minutes:02d}:00Z",
    }
    found = ledger.observe(SCOPE, quote, answer(0, 1, "POST /quotes"))
    assert bool(found) is fails
    if fails:
        assert found[0].clause == "§8 Limits" and "1200 s after" in found[0].statement
