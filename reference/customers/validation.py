"""Validation of ``POST /customers`` and ``PATCH /customers/{customerId}`` bodies.

Every field is checked and every problem recorded before one ``InvalidInput`` is raised
(§7 Errors). The rules are the reference's contract (SANDBOX.md, "Customers"); the
result is the customer's complete field set after the request, ready to store.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from reference.configuration.user_info import provider_required_customer_fields
from reference.customers import agreements
from reference.customers.store import BUSINESS, INDIVIDUAL, Customer
from reference.customers.tax_ids import tax_id_problem
from reference.kernel.field_checks import (
    Check,
    address,
    calendar_date,
    country,
    email,
    phone,
    pick,
    string_list,
    text,
)
from reference.kernel.seams import seam
from reference.kernel.settings import ServerSettings
from reference.kernel.validation import Problems, at

TAX_ID_PROBLEM = seam(
    "customers.tax_id_problem",
    "why businessInfo.taxId does not fit businessInfo.country, None when it fits"
    " (context: country, tax_id)",
)

CUSTOMER_TYPES = (INDIVIDUAL, BUSINESS)
BUSINESS_REQUIRED = ("legalName", "country", "taxId", "incorporatedOn")


def _boolean(problems: Problems, path: str, value: Any) -> bool | None:
    return problems.boolean(path, value)


# Top-level fields of both customer types (§2 Customer). The due-diligence fields the
# interface describes without naming are given names here (SANDBOX.md choices).
_FIELDS: Mapping[str, Check] = {
    "platformCustomerId": text,
    "fullName": text,
    "birthDate": calendar_date,
    "nationality": country,
    "email": email,
    "phoneNumber": phone,
    "region": country,
    "address": address,
    "purposeOfAccount": text,
    "sourceOfFunds": text,
    "expectedMonthlyTransactionCount": text,
    "expectedMonthlyTransactionVolume": text,
    "annualIncomeRange": text,
    "netWorthRange": text,
    "politicallyExposedPerson": _boolean,
    "idType": text,
    "identifier": text,
    "countryOfIssuance": country,
}
_BUSINESS_FIELDS: Mapping[str, Check] = {
    "legalName": text,
    "country": country,
    "taxId": text,
    "incorporatedOn": calendar_date,
    "registrationNumber": text,
    "entityType": text,
    "businessType": text,
    "countriesOfOperation": lambda p, path, v: string_list(p, path, v, country),
    "primaryContactFirstName": text,
    "primaryContactLastName": text,
}
# What a PATCH may send; null for any of them is refused (SANDBOX.md, "Customers")
_PATCHABLE = (
    *_FIELDS,
    "customerType",
    "currencies",
    "businessInfo",
    "agreementConsents",
    "endUserTermsConsent",
)
# The fields a body may carry beyond those ``pick`` reads (which refuses null itself)
_NOT_PICKED = ("currencies", "businessInfo", "agreementConsents", "endUserTermsConsent")
# UserInfoFieldName -> the field that carries it, per customer type. Businesses carry the
# person-shaped names in businessInfo (their required fields), so a business is never
# asked for a birth date (SANDBOX.md lists the individual mapping).
PROVIDER_FIELD = {
    INDIVIDUAL: {
        "FULL_NAME": "fullName",
        "BIRTH_DATE": "birthDate",
        "NATIONALITY": "nationality",
        "ADDRESS": "address",
        "PHONE_NUMBER": "phoneNumber",
        "EMAIL": "email",
        "TAX_ID": "identifier",
    },
    BUSINESS: {
        "FULL_NAME": "businessInfo.legalName",
        "BIRTH_DATE": "businessInfo.incorporatedOn",
        "NATIONALITY": "businessInfo.country",
        "ADDRESS": "address",
        "PHONE_NUMBER": "phoneNumber",
        "EMAIL": "email",
        "BUSINESS_NAME": "businessInfo.legalName",
        "TAX_ID": "businessInfo.taxId",
    },
}


@dataclass(frozen=True, slots=True)
class ValidCustomer:
    """A validated request: the type, every field after the request, consents to record."""

    customer_type: str
    fields: dict[str, Any]
    consents: list[dict[str, Any]]


def validate_create(
    body: Mapping[str, Any], supported: Collection[str], settings: ServerSettings
) -> ValidCustomer:
    """The new customer a valid ``POST /customers`` body describes."""
    problems = Problems()
    problems.no_nulls(body, _NOT_PICKED, "")
    kind = problems.required(body, "customerType", "")
    if kind is not None:
        kind = problems.one_of("customerType", kind, CUSTOMER_TYPES)
    fields = _common(problems, body, supported)
    info = body.get("businessInfo")
    if kind == BUSINESS:
        obj = problems.object("businessInfo", info) if info is not None else None
        if info is None:
            problems.add("businessInfo", "REQUIRED", "is required for BUSINESS customers")
        if obj is not None:
            for key in BUSINESS_REQUIRED:
                problems.required(obj, key, "businessInfo")
            fields["businessInfo"] = _business_info(problems, obj, {}, settings)
    elif kind == INDIVIDUAL and info is not None:
        problems.add("businessInfo", "NOT_ALLOWED", "only BUSINESS customers have businessInfo")
    consents = agreements.validate_consents(problems, body, settings)
    if kind is not None:
        _provider_required(problems, kind, fields, body, stored=False)
    problems.raise_if_any()
    assert kind is not None
    return ValidCustomer(kind, fields, consents)


def validate_patch(
    body: Mapping[str, Any],
    customer: Customer,
    supported: Collection[str],
    settings: ServerSettings,
) -> ValidCustomer:
    """The customer's fields after a valid PATCH body (fields not sent are kept)."""
    problems = Problems()
    problems.no_nulls(body, _PATCHABLE, "")
    if isinstance(body.get("businessInfo"), dict):
        problems.no_nulls(body["businessInfo"], _BUSINESS_FIELDS, "businessInfo")
    kind = customer.customer_type
    sent_type = body.get("customerType")
    if sent_type is not None and sent_type != kind:
        problems.conflict("customerType", "IMMUTABLE", "cannot change after creation")
    fields = {**customer.fields, **_common(problems, body, supported)}
    info = body.get("businessInfo")
    if info is not None:
        if kind == INDIVIDUAL:  # the stored type decides: the record's state
            problems.conflict(
                "businessInfo", "NOT_ALLOWED", "only BUSINESS customers have businessInfo"
            )
        else:
            obj = problems.object("businessInfo", info)
            if obj is not None:
                fields["businessInfo"] = _business_info(
                    problems, obj, customer.fields.get("businessInfo", {}), settings
                )
    consents = agreements.validate_consents(problems, body, settings)
    _provider_required(problems, kind, fields, body, stored=True)
    problems.raise_if_any()
    return ValidCustomer(kind, fields, consents)


def _common(
    problems: Problems, body: Mapping[str, Any], supported: Collection[str]
) -> dict[str, Any]:
    fields = pick(problems, body, "", _FIELDS)
    sent = body.get("currencies")
    if sent is not None:
        items = problems.array("currencies", sent)
        if items is not None:
            before = len(problems)
            for index, code in enumerate(items):
                path = at("currencies", index)
                if problems.string(path, code) is not None and code not in supported:
                    problems.add(path, "UNSUPPORTED_CURRENCY", "must be a currency code we know")
            if len(problems) == before:
                fields["currencies"] = list(items)
    return fields


def _business_info(
    problems: Problems,
    obj: Mapping[str, Any],
    stored: Mapping[str, Any],
    settings: ServerSettings,
) -> dict[str, Any]:
    """``businessInfo`` after merging the sent keys into the stored ones."""
    checked = pick(problems, obj, "businessInfo", _BUSINESS_FIELDS)
    merged = {**stored, **checked}
    country_code, tax_id = merged.get("country"), merged.get("taxId")
    touched = "country" in obj or "taxId" in obj
    valid_parts = obj.get("country") is None or "country" in checked
    if touched and valid_parts and country_code is not None and tax_id is not None:
        problem = tax_id_problem(country_code, tax_id)
        problem = settings.seams.apply(TAX_ID_PROBLEM, problem, country=country_code, tax_id=tax_id)
        if problem is not None and "country" in obj and "taxId" in obj:
            problems.add("businessInfo.taxId", "TAX_ID_FORMAT", problem)
        elif problem is not None:  # one of the two is the stored one: the record's state
            problems.conflict("businessInfo.taxId", "TAX_ID_FORMAT", problem)
    return merged


def _provider_required(
    problems: Problems,
    kind: str,
    fields: Mapping[str, Any],
    body: Mapping[str, Any],
    *,
    stored: bool,
) -> None:
    """Each field the provider needs for the customer's currencies (§2 PlatformConfig).

    A field sent but invalid already has its error; it is not reported twice. On create the
    body alone decides (400, as the served document declares per currency); on a PATCH the
    stored customer does too, its state (409).
    """
    mapping = PROVIDER_FIELD[kind]
    missing: list[str] = []
    for code in fields.get("currencies", []):
        for name in provider_required_customer_fields(code):
            path = mapping.get(name)
            if path is None or path in missing or _sent(body, path) or _value(fields, path):
                continue
            missing.append(path)
    record = problems.conflict if stored else problems.add
    for path in missing:
        record(path, "PROVIDER_REQUIRED", "the provider requires it for these currencies")


def _value(fields: Mapping[str, Any], path: str) -> Any:
    head, _, rest = path.partition(".")
    value = fields.get(head)
    return value.get(rest) if rest and isinstance(value, dict) else value


def _sent(body: Mapping[str, Any], path: str) -> bool:
    return _value(body, path) is not None
