"""The optional request fields the interface names, as data: where each goes, the values
the interface allows, and where the answer (and a later read) shows it.

A field the target is sent with an allowed value is either refused as the interface says
(400 ``INVALID_INPUT`` naming it, §7 Errors) or kept: where the interface shows the field
on the record answered, the value sent is there, and so on the record read later. Where the
interface lists a field on the request but shows no field of the record carrying it,
``shown_at`` is None and only a clean acceptance or refusal is checked; nothing is ever
failed for being absent where the interface does not show it.

The table holds the fields no other test already sends and checks (issue 28): a quote's
``destination.paymentRail`` and ``purposeOfPayment``, a customer's due-diligence fields, a
business's ``entityType`` and ``businessType``, the ``currencyAmount`` of a sandbox payment.
Those others:

- ``POST /quotes``: ``description`` (``endpoints/test_quotes.py``, and on the transaction in
  ``resources/test_transactions.py``); ``remittanceInformation`` (accepted,
  ``endpoints/test_quotes.py``; its length, ``limits/test_quotes_limits.py``; no response
  field shown); ``immediatelyExecute`` (``transitions/test_execute.py``,
  ``endpoints/test_funding_sources.py``); ``platformFeeOverride`` (inner shape not shown;
  accepted for USD and reported in ``platformFeesIncluded``, refused otherwise,
  ``limits/test_quotes_limits.py``).
- ``POST``/``PATCH /customers``: the contact, identity and address fields and ``currencies``
  read back unchanged (generated, ``endpoints/test_customers.py``); ``agreementConsents``
  (``endpoints/test_agreements.py``). The table adds the contact fields all the same, so a
  run sends each at least once whatever the generator draws.
- ``POST /customers/{customerId}/kyc-link`` ``redirectUri``: embedded in the link
  (``endpoints/test_kyc_link.py``).
- ``POST /internal-accounts`` label: read back (``limits/test_rule_based_limits.py``).
- ``GET /transactions`` filters ``status``, ``type`` (``endpoints/test_transactions.py``) and
  ``cardId`` (``endpoints/test_cards.py``); ``GET /verifications?customerId``
  (``endpoints/test_verification.py``).

The table's ``POST /sandbox/send`` ``currencyAmount`` is the quote's own amount, the only one
whose effect the interface shows. Not sendable: the further due-diligence fields
(transaction count and volume, income and net-worth ranges, political exposure) have no
names in the interface.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conformance.contract import clauses
from conformance.contract.error_bodies import FieldPath

__all__ = [
    "ABSENT",
    "BUSINESS",
    "CUSTOMER_CREATE",
    "CUSTOMER_PATCH",
    "INDIVIDUAL",
    "OPTIONAL_FIELDS",
    "QUOTE_CREATE",
    "SANDBOX_SEND",
    "FromRecord",
    "OptionalField",
    "value_at",
    "with_value",
]

QUOTE_CREATE = "POST /quotes"
SANDBOX_SEND = "POST /sandbox/send"
CUSTOMER_CREATE = "POST /customers"
CUSTOMER_PATCH = "PATCH /customers/{customerId}"
# The customer a customer request is built on (§2 Customer customerType).
INDIVIDUAL = "INDIVIDUAL"
BUSINESS = "BUSINESS"
# The answer's record read again later: the quote's transaction, the customer.
TRANSACTION = "the quote's transaction (GET /transactions)"
CUSTOMER = "GET /customers/{customerId}"


class _Absent:
    """What :func:`value_at` finds where a record has no such field."""

    def __repr__(self) -> str:
        return "<absent>"


ABSENT: Any = _Absent()


@dataclass(frozen=True, slots=True)
class FromRecord:
    """A value the request takes from the record it is built on: the one at ``path``."""

    path: FieldPath

    def __str__(self) -> str:
        return ".".join(str(p) for p in self.path)


@dataclass(frozen=True, slots=True)
class OptionalField:
    """One optional field of one request, and what the interface says of it.

    ``base`` is the record the request is built on (``INDIVIDUAL``, ``BUSINESS``; a quote's
    is a USD corridor of an approved customer, a sandbox payment's a just-in-time USD
    quote); a value may be taken from it (:class:`FromRecord`). ``shown_at`` is where the
    answered record carries the field (None: not shown, so only a clean acceptance or
    refusal is checked); ``read_later`` names the record read again afterwards, and
    ``later_required`` whether the field must be on it or is only compared when present (a
    shape the interface gives as "as on the quote"); ``answer_required`` the same for the
    record answered (a field the interface marks optional there, ``paymentRail?``).
    """

    requirement: str
    operation: str
    path: FieldPath
    values: tuple[Any, ...]
    states: str
    clause: str
    shown_at: FieldPath | None = None
    read_later: str | None = None
    later_required: bool = True
    base: str = ""
    answer_required: bool = True

    @property
    def name(self) -> str:
        """The field's path as the interface writes it: ``destination.paymentRail``."""
        return ".".join(str(p) for p in self.path)


def value_at(record: Any, path: FieldPath) -> Any:
    """The value at ``path`` in ``record``; :data:`ABSENT` when a key on the way is absent."""
    node = record
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return ABSENT
        node = node[key]
    return node


def with_value(body: Mapping[str, Any], path: FieldPath, value: Any) -> dict[str, Any]:
    """A copy of ``body`` with ``value`` set at ``path`` (objects on the way copied)."""
    copied: dict[str, Any] = dict(body)
    node = copied
    for key in path[:-1]:
        inner = node.get(str(key))
        node[str(key)] = dict(inner) if isinstance(inner, Mapping) else {}
        node = node[str(key)]
    node[str(path[-1])] = value
    return copied


_RAIL = (
    "the interface: POST /quotes takes an ACCOUNT destination with an optional paymentRail "
    "(for example ACH, WIRE, RTP, FEDNOW; §4), the quote's destination is {destinationType: "
    "ACCOUNT, accountId, paymentRail?} (§2 Quote), a transaction's destination is as on the "
    "quote (§2 Transaction)"
)
_PURPOSE = (
    "the interface: POST /quotes takes purposeOfPayment, an optional string whose values are "
    "not shown (§4); no response field carrying it is shown"
)
_DUE_DILIGENCE = (
    "the interface: purposeOfAccount and sourceOfFunds are optional due-diligence fields of "
    "the customer (enum/string, values not shown; §2 Customer); POST /customers takes the "
    "customer fields and PATCH /customers/{customerId} the fields to change, each answering "
    "the customer (§4)"
)
_BUSINESS_INFO = (
    "the interface: entityType and businessType are fields of a business's businessInfo "
    "(values not shown; §2 Customer); POST /customers takes the customer fields (§4)"
)
_PAID_AMOUNT = (
    "the interface: POST /sandbox/send takes {quoteId, currencyCode, currencyAmount?}, the "
    "amount derived from the quote when omitted, and answers the Transaction (§4), whose "
    "sentAmount is {amount, currency} (§2 Transaction)"
)
_CONTACT = (
    "the interface: email and phoneNumber (contact channels) and region (a country code) are "
    "fields of the customer (§2 Customer); POST /customers takes the customer fields (§4)"
)

OPTIONAL_FIELDS: tuple[OptionalField, ...] = (
    OptionalField(
        "QUOTE-PAYMENT-RAIL-HONOURED",
        QUOTE_CREATE,
        ("destination", "paymentRail"),
        # every rail the interface names: whichever the service would choose by default,
        # the others tell a rail kept from one ignored
        ("ACH", "WIRE", "RTP", "FEDNOW"),
        _RAIL,
        clauses.QUOTES_ENDPOINTS,
        shown_at=("destination", "paymentRail"),
        read_later=TRANSACTION,
        later_required=False,  # "as on the quote": a rail there must be the one sent
        # §2 shows `paymentRail?`: a quote without one is an advisory, another rail fails
        answer_required=False,
    ),
    OptionalField(
        "SANDBOX-SEND-AMOUNT-HONOURED",
        SANDBOX_SEND,
        ("currencyAmount",),
        # the quote's own amount: what another amount pays is not shown
        (FromRecord(("totalSendingAmount",)),),
        _PAID_AMOUNT,
        clauses.CARDS_AGENTS_SANDBOX_ENDPOINTS,
        shown_at=("sentAmount", "amount"),
    ),
    OptionalField(
        "QUOTE-PURPOSE-OF-PAYMENT-ACCEPTED",
        QUOTE_CREATE,
        ("purposeOfPayment",),
        ("GOODS_AND_SERVICES",),
        _PURPOSE,
        clauses.QUOTES_ENDPOINTS,
    ),
    *(
        OptionalField(
            "CUSTOMER-DUE-DILIGENCE-HONOURED",
            operation,
            (name,),
            (value,),
            _DUE_DILIGENCE,
            clauses.CUSTOMERS_ENDPOINTS,
            shown_at=(name,),
            read_later=CUSTOMER,
            base=base,
        )
        for operation, base in (
            (CUSTOMER_CREATE, INDIVIDUAL),
            (CUSTOMER_CREATE, BUSINESS),
            (CUSTOMER_PATCH, INDIVIDUAL),
        )
        for name, value in (("purposeOfAccount", "PERSONAL_USE"), ("sourceOfFunds", "SALARY"))
    ),
    *(
        OptionalField(
            "CUSTOMER-BUSINESS-INFO-HONOURED",
            CUSTOMER_CREATE,
            ("businessInfo", name),
            (value,),
            _BUSINESS_INFO,
            clauses.CUSTOMERS_ENDPOINTS,
            shown_at=("businessInfo", name),
            read_later=CUSTOMER,
            base=BUSINESS,
        )
        for name, value in (("entityType", "LLC"), ("businessType", "TECHNOLOGY"))
    ),
    *(
        OptionalField(
            "CUSTOMER-CONTACT-FIELDS-HONOURED",
            CUSTOMER_CREATE,
            (name,),
            (value,),
            _CONTACT,
            clauses.CUSTOMERS_ENDPOINTS,
            shown_at=(name,),
            read_later=CUSTOMER,
            base=INDIVIDUAL,
        )
        for name, value in (
            ("email", "ada.optional@example.com"),
            ("phoneNumber", "+12125550142"),
            ("region", "GB"),
        )
    ),
)
