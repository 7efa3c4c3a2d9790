"""Customer request bodies (§2 Customer, §4 Customers and verification): builders and strategies.

Valid bodies use only values every reasonable reading of the interface accepts: well-known
ISO 3166-1 alpha-2 codes, real calendar dates in the past, US employer identification
numbers with an issued prefix, fictional but well-formed phone numbers, and no field whose
values the interface does not show (``purposeOfAccount``, ``entityType``, ...). Invalid
bodies break stated rules, one or several at once, and carry the paths they broke
(:class:`InvalidCustomer`).
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from types import MappingProxyType
from typing import Any

from hypothesis import strategies as st

from conformance.contract.error_bodies import FieldPath

__all__ = [
    "CONSENT_PATHS",
    "COUNTRIES",
    "PROVIDER_FIELD_PATHS",
    "InvalidCustomer",
    "business_body",
    "consent_entry",
    "individual_body",
    "invalid_customers",
    "timestamp_minutes_ago",
    "valid_businesses",
    "valid_customer_patches",
    "valid_individuals",
]

# Alpha-2 codes every validator knows (EEA members among them, so some generated customers
# also meet a provider that asks for contact verification).
COUNTRIES = ("US", "GB", "DE", "FR", "ES", "IT", "NL", "IE", "MX", "BR", "CA", "JP", "SG", "AU")
_EIN_PREFIXES = ("10", "12", "20", "27", "30", "45", "46", "52", "61", "75", "83", "94")

# UserInfoFieldName -> where an individual / a business carries it (§2 PlatformConfig).
PROVIDER_FIELD_PATHS: dict[str, dict[str, FieldPath]] = {
    "INDIVIDUAL": {
        "FULL_NAME": ("fullName",),
        "BIRTH_DATE": ("birthDate",),
        "NATIONALITY": ("nationality",),
        "ADDRESS": ("address",),
        "PHONE_NUMBER": ("phoneNumber",),
        "EMAIL": ("email",),
        "TAX_ID": ("identifier",),
    },
    "BUSINESS": {
        "BUSINESS_NAME": ("businessInfo", "legalName"),
        "TAX_ID": ("businessInfo", "taxId"),
        "ADDRESS": ("address",),
        "PHONE_NUMBER": ("phoneNumber",),
        "EMAIL": ("email",),
    },
}


def timestamp_minutes_ago(minutes: float) -> str:
    """An ISO 8601 UTC timestamp ``minutes`` in the past, to the second."""
    moment = datetime.now(UTC) - timedelta(minutes=minutes)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def consent_entry(
    agreement_type: str | None, version: str, *, minutes_ago: float = 5, ip: str = "203.0.113.7"
) -> dict[str, Any]:
    """One acceptance: an ``agreementConsents`` entry, or ``endUserTermsConsent`` without type."""
    entry: dict[str, Any] = {
        "termsVersion": version,
        "acceptedAt": timestamp_minutes_ago(minutes_ago),
        "ipAddress": ip,
        "acceptanceMethod": "CLICKWRAP",
    }
    if agreement_type is not None:
        entry = {"type": agreement_type, **entry}
    return entry


def _address(country: str = "US") -> dict[str, Any]:
    return {"line1": "1 Specimen Street", "city": "Springfield", "state": "CA",
            "postalCode": "94016", "country": country}  # fmt: skip


def individual_body(
    suffix: str = "", *, complete: bool = True, given: str = "Ada", family: str = "Lovelace"
) -> dict[str, Any]:
    """An individual whose ``fullName`` ends in ``suffix``; ``complete`` adds the KYC fields.

    The complete packet of §4 Sandbox behaviours: full name, birth date, nationality,
    ``idType`` + ``identifier``, address (the identity document is uploaded separately).
    """
    body: dict[str, Any] = {
        "customerType": "INDIVIDUAL",
        "platformCustomerId": f"conformance-{uuid.uuid4()}",
        "fullName": f"{given} {family}{suffix}",
    }
    if complete:
        body.update(
            birthDate="1990-01-31",
            nationality="US",
            region="US",
            idType="SSN",
            identifier="123-45-6789",
            countryOfIssuance="US",
            address=_address(),
        )
    return body


def business_body(suffix: str = "", *, registration: bool = True) -> dict[str, Any]:
    """A business whose ``businessInfo.registrationNumber`` ends in ``suffix``."""
    info: dict[str, Any] = {
        "legalName": "Specimen Trading Inc",
        "country": "US",
        "taxId": "12-3456789",
        "incorporatedOn": "2015-06-01",
        "primaryContactFirstName": "Grace",
        "primaryContactLastName": "Hopper",
    }
    if registration:
        # a plain number ends in letters, so it never carries a sandbox suffix by accident
        info["registrationNumber"] = f"REG-{uuid.uuid4().hex[:6].upper()}-{suffix or 'AX'}"
    return {
        "customerType": "BUSINESS",
        "platformCustomerId": f"conformance-{uuid.uuid4()}",
        "businessInfo": info,
        "address": _address(),
    }


# -- strategies --------------------------------------------------------------------------------

_letters = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=10)
_name_word = _letters.map(str.capitalize)
_countries = st.sampled_from(COUNTRIES)
_past_dates = st.dates(min_value=date(1930, 1, 1), max_value=date(2005, 12, 31)).map(date.isoformat)
_incorporation_dates = st.dates(min_value=date(1950, 1, 1), max_value=date(2023, 12, 31)).map(
    date.isoformat
)
_emails = st.builds(lambda a, b: f"{a}@{b}.example.com", _letters, _letters)
_phones = st.one_of(
    st.integers(100, 199).map(lambda n: f"+1212555{n:04d}"),  # NANP fictional 555-01xx
    st.integers(0, 999).map(lambda n: f"+44207946{n:04d}"),  # Ofcom drama range
)
_platform_ids = st.uuids().map(lambda u: f"conformance-{u}")
_ssns = st.builds(
    lambda a, g, s: f"{a:03d}-{g:02d}-{s:04d}",
    st.integers(100, 665),
    st.integers(1, 99),
    st.integers(1, 9999),
)
_eins = st.builds(
    lambda p, n: f"{p}-{n:07d}", st.sampled_from(_EIN_PREFIXES), st.integers(0, 10**7 - 1)
)


@st.composite
def _addresses(draw: st.DrawFn) -> dict[str, Any]:
    address: dict[str, Any] = {
        "line1": f"{draw(st.integers(1, 9999))} {draw(_name_word)} Street",
        "city": draw(_name_word),
        "postalCode": str(draw(st.integers(10000, 99999))),
        "country": draw(_countries),
    }
    if draw(st.booleans()):
        address["line2"] = f"Unit {draw(st.integers(1, 500))}"
    if draw(st.booleans()):
        address["state"] = draw(st.sampled_from(["CA", "NY", "TX", "WA"]))
    return address


def _satisfiable(kind: str, currencies: Mapping[str, Sequence[str]]) -> list[str]:
    """Currencies whose provider-required fields a customer of ``kind`` can carry."""
    paths = PROVIDER_FIELD_PATHS[kind]
    return [code for code, needs in currencies.items() if all(n in paths for n in needs)]


def _with_provider_fields(
    draw: st.DrawFn, kind: str, body: dict[str, Any], needs: Sequence[str]
) -> None:
    """Add the fields the chosen currencies' providers require (§2 PlatformConfig)."""
    fill: dict[str, st.SearchStrategy[Any]] = {
        "fullName": st.builds(lambda a, b: f"{a} {b}", _name_word, _name_word),
        "birthDate": _past_dates,
        "nationality": _countries,
        "address": _addresses(),
        "phoneNumber": _phones,
        "email": _emails,
        "identifier": _ssns,
    }
    for name in needs:
        key = str(PROVIDER_FIELD_PATHS[kind][name][0])
        if len(PROVIDER_FIELD_PATHS[kind][name]) == 1 and key not in body:
            body[key] = draw(fill[key])
            if key == "identifier":
                body.setdefault("idType", "SSN")


@st.composite
def valid_individuals(
    draw: st.DrawFn, currencies: Mapping[str, Sequence[str]] | None = None
) -> dict[str, Any]:
    """Individuals any conforming target accepts; ``currencies`` maps code -> required fields."""
    optional: dict[str, st.SearchStrategy[Any]] = {
        "platformCustomerId": _platform_ids,
        "fullName": st.builds(lambda a, b: f"{a} {b}", _name_word, _name_word),
        "birthDate": _past_dates,
        "nationality": _countries,
        "email": _emails,
        "phoneNumber": _phones,
        "region": _countries,
        "address": _addresses(),
    }
    body = draw(st.fixed_dictionaries({"customerType": st.just("INDIVIDUAL")}, optional=optional))
    if draw(st.booleans()):
        body.update(idType="SSN", identifier=draw(_ssns), countryOfIssuance="US")
    _add_currencies(draw, "INDIVIDUAL", body, currencies)
    return body


@st.composite
def _business_infos(draw: st.DrawFn) -> dict[str, Any]:
    optional: dict[str, st.SearchStrategy[Any]] = {
        "registrationNumber": st.integers(10**5, 10**9).map(lambda n: f"RN{n}X"),
        "countriesOfOperation": st.lists(_countries, min_size=1, max_size=3, unique=True),
        "primaryContactFirstName": _name_word,
        "primaryContactLastName": _name_word,
    }
    required = {
        "legalName": st.builds(lambda a, b: f"{a} {b} Inc", _name_word, _name_word),
        "country": st.just("US"),  # a US EIN is valid under every reading of its format
        "taxId": _eins,
        "incorporatedOn": _incorporation_dates,
    }
    info: dict[str, Any] = draw(st.fixed_dictionaries(required, optional=optional))
    return info


@st.composite
def valid_businesses(
    draw: st.DrawFn, currencies: Mapping[str, Sequence[str]] | None = None
) -> dict[str, Any]:
    """Businesses any conforming target accepts (businessInfo with its four required fields)."""
    optional: dict[str, st.SearchStrategy[Any]] = {
        "platformCustomerId": _platform_ids,
        "email": _emails,
        "phoneNumber": _phones,
        "region": _countries,
        "address": _addresses(),
    }
    body = draw(
        st.fixed_dictionaries(
            {"customerType": st.just("BUSINESS"), "businessInfo": _business_infos()},
            optional=optional,
        )
    )
    _add_currencies(draw, "BUSINESS", body, currencies)
    return body


def _add_currencies(
    draw: st.DrawFn, kind: str, body: dict[str, Any], currencies: Mapping[str, Sequence[str]] | None
) -> None:
    usable = _satisfiable(kind, currencies or {})
    if not usable or not draw(st.booleans()):
        return
    chosen = draw(st.lists(st.sampled_from(usable), min_size=1, max_size=3, unique=True))
    body["currencies"] = chosen
    needs = [n for code in chosen for n in (currencies or {})[code]]
    _with_provider_fields(draw, kind, body, needs)


@st.composite
def valid_customer_patches(draw: st.DrawFn, kind: str) -> dict[str, Any]:
    """PATCH bodies changing fields of a customer of ``kind`` to other valid values.

    Objects are sent whole (a partial ``address`` or ``businessInfo`` would depend on merge
    rules the interface does not show).
    """
    optional: dict[str, st.SearchStrategy[Any]] = {
        "platformCustomerId": _platform_ids,
        "email": _emails,
        "phoneNumber": _phones,
        "region": _countries,
        "address": _addresses(),
    }
    if kind == "INDIVIDUAL":
        optional.update(birthDate=_past_dates, nationality=_countries)
    else:
        optional["businessInfo"] = _business_infos()
    patch: dict[str, Any] = draw(st.fixed_dictionaries({}, optional=optional).filter(bool))
    return patch


# -- invalid bodies ----------------------------------------------------------------------------

_BAD_DATES = ["31/01/1990", "1990-13-01", "1990-02-30", "19900131", "yesterday"]
_BAD_COUNTRIES = ["12", "U5", "Narnia", ""]
_BAD_ALPHA2 = ["USA", "U1", "12", ""]
_BAD_TYPES = ["PERSON", "COMPANY", "", 7]
_BAD_EINS = ["ABCDEFGHI", "---------", "12-ABCDEFG", "12"]
_BUSINESS_REQUIRED = ("legalName", "country", "taxId", "incorporatedOn")
CONSENT_PATHS: tuple[FieldPath, ...] = (("endUserTermsConsent",), ("agreementConsents",))


@dataclass(frozen=True, slots=True)
class InvalidCustomer:
    """A POST /customers body and the stated rules it breaks.

    ``invalid`` are the fields every error listing must name; ``both_consents`` marks the
    "both consent forms at once" rule, whose error may name either of the two fields.
    """

    body: dict[str, Any]
    invalid: tuple[FieldPath, ...]
    rules: tuple[str, ...]
    both_consents: bool = False


@st.composite
def invalid_customers(
    draw: st.DrawFn, end_user_terms: tuple[str, str] | None = None
) -> InvalidCustomer:
    """A customer body breaking one to four stated rules.

    ``end_user_terms`` is the (type, version) of the end-user terms, for the rule against
    sending ``endUserTermsConsent`` and ``agreementConsents`` together.
    """
    kind = draw(st.sampled_from(["INDIVIDUAL", "BUSINESS"]))
    base = draw(valid_individuals() if kind == "INDIVIDUAL" else valid_businesses())
    body = copy.deepcopy(base)
    broken: dict[FieldPath, str] = {}
    both = False
    for breaker in _chosen_breakers(draw, kind, with_consents=end_user_terms is not None):
        if breaker == "bothConsents" and end_user_terms is not None:
            agreement_type, version = end_user_terms
            body["endUserTermsConsent"] = consent_entry(None, version)
            body["agreementConsents"] = [consent_entry(agreement_type, version)]
            both = True
        elif breaker in _CUSTOMER_BREAKERS:
            _CUSTOMER_BREAKERS[breaker](draw, body, broken)
        else:
            _break_business_info(draw, breaker, body.get("businessInfo"), broken)
    if not broken and not both:  # every chosen breaker was inapplicable: break the type
        del body["customerType"]
        broken[("customerType",)] = "customerType is required"
    rules = tuple(broken.values()) + (("not both consent forms at once",) if both else ())
    return InvalidCustomer(body, tuple(broken), rules, both)


_INDIVIDUAL_BREAKERS = ("birthDate", "nationality")
_BUSINESS_BREAKERS = (
    "businessInfoMissing",
    "businessInfoField",
    "businessCountry",
    "incorporatedOn",
    "taxId",
)


def _chosen_breakers(draw: st.DrawFn, kind: str, *, with_consents: bool) -> list[str]:
    """One to four rules to break that can be broken together in a body of ``kind``."""
    by_kind = _INDIVIDUAL_BREAKERS if kind == "INDIVIDUAL" else _BUSINESS_BREAKERS
    breakers = ["customerType", "region", "addressCountry", *by_kind]
    if with_consents:
        breakers.append("bothConsents")
    chosen = draw(st.lists(st.sampled_from(breakers), min_size=1, max_size=4, unique=True))
    if "customerType" in chosen:  # the type decides which other rules apply: keep shared ones
        chosen = [b for b in chosen if b not in by_kind]
    if "businessInfoMissing" in chosen:
        chosen = [b for b in chosen if b not in by_kind or b == "businessInfoMissing"]
    if "businessCountry" in chosen or "businessInfoField" in chosen:
        chosen = [b for b in chosen if b != "taxId"]  # the tax id is judged against the country
    return chosen


Breaker = Callable[[st.DrawFn, dict[str, Any], dict[FieldPath, str]], None]


def _break_type(draw: st.DrawFn, body: dict[str, Any], broken: dict[FieldPath, str]) -> None:
    value = draw(st.sampled_from([None, *_BAD_TYPES]))
    if value is None:
        del body["customerType"]
    else:
        body["customerType"] = value
    broken[("customerType",)] = "customerType is required, INDIVIDUAL or BUSINESS"


def _break_region(draw: st.DrawFn, body: dict[str, Any], broken: dict[FieldPath, str]) -> None:
    body["region"] = draw(st.sampled_from(_BAD_COUNTRIES))
    broken[("region",)] = "region is a country code"


def _break_address(draw: st.DrawFn, body: dict[str, Any], broken: dict[FieldPath, str]) -> None:
    body["address"] = {**(body.get("address") or draw(_addresses()))}
    body["address"]["country"] = draw(st.sampled_from(_BAD_COUNTRIES))
    broken[("address", "country")] = "address.country is a country code"


def _break_birth(draw: st.DrawFn, body: dict[str, Any], broken: dict[FieldPath, str]) -> None:
    body["birthDate"] = draw(st.sampled_from(_BAD_DATES))
    broken[("birthDate",)] = "birthDate is a YYYY-MM-DD date"


def _break_nation(draw: st.DrawFn, body: dict[str, Any], broken: dict[FieldPath, str]) -> None:
    body["nationality"] = draw(st.sampled_from(_BAD_COUNTRIES))
    broken[("nationality",)] = "nationality is a country code"


def _drop_info(draw: st.DrawFn, body: dict[str, Any], broken: dict[FieldPath, str]) -> None:
    body.pop("businessInfo", None)
    broken[("businessInfo",)] = "BUSINESS requires businessInfo"


_CUSTOMER_BREAKERS: Mapping[str, Breaker] = MappingProxyType(
    {
        "customerType": _break_type,
        "region": _break_region,
        "addressCountry": _break_address,
        "birthDate": _break_birth,
        "nationality": _break_nation,
        "businessInfoMissing": _drop_info,
    }
)


def _break_business_info(
    draw: st.DrawFn, breaker: str, info: object, broken: dict[FieldPath, str]
) -> None:
    """Break one rule of ``businessInfo`` (when it is there to break)."""
    if not isinstance(info, dict):
        return
    if breaker == "businessInfoField":
        name = draw(st.sampled_from(_BUSINESS_REQUIRED))
        info.pop(name, None)
        broken[("businessInfo", name)] = f"businessInfo.{name} is required"
    elif breaker == "businessCountry" and "country" in info:
        info["country"] = draw(st.sampled_from(_BAD_ALPHA2))
        broken[("businessInfo", "country")] = "businessInfo.country is ISO 3166-1 alpha-2"
    elif breaker == "incorporatedOn" and "incorporatedOn" in info:
        info["incorporatedOn"] = draw(st.sampled_from(_BAD_DATES))
        broken[("businessInfo", "incorporatedOn")] = "incorporatedOn is a YYYY-MM-DD date"
    elif breaker == "taxId" and "taxId" in info and info.get("country") == "US":
        info["taxId"] = draw(st.sampled_from(_BAD_EINS))
        broken[("businessInfo", "taxId")] = "taxId is validated against the country (US EIN)"
