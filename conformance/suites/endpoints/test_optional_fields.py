"""Part 4, endpoints — every optional request field the interface names (quotes, customers,
the sandbox's payment), sent with a value it allows, is refused as the interface says or
kept (``contract/optional_fields.py`` holds the fields and says which other tests send the
rest).

One check over the table: the request with the field answers 2xx, or 400 INVALID_INPUT
naming the field (§7); once accepted, the record answered and the record read later carry
the value sent wherever the interface shows the field.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from conformance.contract.optional_fields import (
    BUSINESS,
    CUSTOMER_CREATE,
    CUSTOMER_PATCH,
    OPTIONAL_FIELDS,
    QUOTE_CREATE,
    SANDBOX_SEND,
    FromRecord,
    OptionalField,
    value_at,
    with_value,
)
from conformance.customers.bodies import business_body, individual_body
from conformance.exchange.assertions import required_json
from conformance.exchange.client import ApiResponse
from conformance.exchange.honoured import assert_kept, refused_or_accepted

pytestmark = [pytest.mark.writes]


@pytest.fixture(scope="module")
def quoting_wallet(funding):
    """An approved, funded customer with a USD corridor, shared by the quote cases."""
    return funding.wallet(("USD",))


@dataclass(frozen=True, slots=True)
class Later:
    """A record read after the request: where it was read, the record, whether it must
    carry the field (else only a value it carries is compared)."""

    where: str
    record: Any
    required: bool


@dataclass(frozen=True, slots=True)
class Sent:
    """A request carrying the field with ``value``, and how to read its record again once
    accepted."""

    response: ApiResponse
    value: Any
    read_later: Callable[[Any], Later | None] = lambda answered: None


def _quote(request: pytest.FixtureRequest, field: OptionalField, value: Any) -> Sent:
    """A quote along a USD wallet's corridor; later, the quote's transaction."""
    wallet = request.getfixturevalue("quoting_wallet")
    quotes = request.getfixturevalue("quotes")
    history = request.getfixturevalue("transaction_history")
    response = quotes.create_quote(with_value(wallet.corridor().body(), field.path, value))

    def transaction(quote: Any) -> Later | None:
        found = history.transaction(wallet.customer_id, quote.get("transactionId"))
        if found is None:  # listing a pending quote's transaction is other tests' business
            return None
        return Later(str(field.read_later), found, field.later_required)

    return Sent(response, value, transaction)


def _customer_reader(
    request: pytest.FixtureRequest, field: OptionalField
) -> Callable[[Any], Later]:
    """Reads the customer answered again with GET /customers/{customerId}."""
    client = request.getfixturevalue("client")

    def customer(answered: Any) -> Later:
        response = client.get(f"/customers/{answered.get('id')}")
        record = required_json(
            response, field.clause, "GET /customers/{customerId} returns the customer", status=200
        )
        return Later(str(field.read_later), record, field.later_required)

    return customer


def _created_customer(request: pytest.FixtureRequest, field: OptionalField, value: Any) -> Sent:
    """A business, or an individual (suffix 001: submittable in every mode), created with
    the field."""
    client = request.getfixturevalue("client")
    base = business_body() if field.base == BUSINESS else individual_body("001")
    body = with_value(base, field.path, value)
    return Sent(client.post("/customers", json=body), value, _customer_reader(request, field))


def _patched_customer(request: pytest.FixtureRequest, field: OptionalField, value: Any) -> Sent:
    """An individual created without the field, then patched with it alone."""
    client = request.getfixturevalue("client")
    customer = request.getfixturevalue("onboarding").create(individual_body("001"))
    response = client.patch(f"/customers/{customer['id']}", json=with_value({}, field.path, value))
    return Sent(response, value, _customer_reader(request, field))


def _sandbox_payment(request: pytest.FixtureRequest, field: OptionalField, value: Any) -> Sent:
    """A just-in-time USD quote paid through the sandbox, the value taken from the quote."""
    jit = request.getfixturevalue("transfers").just_in_time("USD")
    if isinstance(value, FromRecord):
        value = value_at(jit.quote, value.path)
    body = with_value({"quoteId": jit.quote_id, "currencyCode": "USD"}, field.path, value)
    return Sent(request.getfixturevalue("client").post("/sandbox/send", json=body), value)


SENDERS: dict[str, Callable[[pytest.FixtureRequest, OptionalField, Any], Sent]] = {
    QUOTE_CREATE: _quote,
    CUSTOMER_CREATE: _created_customer,
    CUSTOMER_PATCH: _patched_customer,
    SANDBOX_SEND: _sandbox_payment,
}


def _case_id(field: OptionalField, value: Any) -> str:
    """``POST-quotes:destination.paymentRail=WIRE``, ``POST-customers-business:...``."""
    method, path = field.operation.split(" ", 1)
    words = [p for p in path.replace("{", "").replace("}", "").split("/") if p]
    words += [field.base.lower()] if field.base else []
    return f"{method}-{'-'.join(words)}:{field.name}={value}"


CASES = [
    pytest.param(
        field,
        value,
        id=_case_id(field, value),
        marks=pytest.mark.requirement(field.requirement),
    )
    for field in OPTIONAL_FIELDS
    for value in field.values
]


@pytest.mark.parametrize(("field", "value"), CASES)
def test_an_optional_field_sent_is_refused_as_stated_or_kept(request, advisory, field, value):
    sent = SENDERS[field.operation](request, field, value)
    answered = refused_or_accepted(sent.response, field, sent.value)
    if answered is None:  # refused as the interface says
        return
    exchange = sent.response.exchange
    assert_kept(
        field, sent.value, answered, "the record answered", required=field.answer_required,
        advisory=advisory, exchange=exchange,
    )  # fmt: skip
    later = sent.read_later(answered) if field.read_later else None
    if later is not None:
        assert_kept(
            field, sent.value, later.record, later.where, required=later.required,
            advisory=advisory,
        )  # fmt: skip
