"""Hypothesis strategies for ``PATCH /config`` bodies (§2 PlatformConfig, §4 configuration).

Valid bodies only use what the interface states and what the target already accepts (its
own currencies), so a valid body can never be refused for a reason the interface does not
give. Invalid bodies break one or more stated rules and carry the paths they broke.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from conformance.contract.error_bodies import FieldPath

__all__ = [
    "USER_INFO_FIELD_NAMES",
    "InvalidBody",
    "editable_snapshot",
    "fee_config",
    "invalid_config_patches",
    "known_currency_codes",
    "valid_config_patches",
]

USER_INFO_FIELD_NAMES = (
    "FULL_NAME",
    "BIRTH_DATE",
    "NATIONALITY",
    "ADDRESS",
    "PHONE_NUMBER",
    "EMAIL",
    "BUSINESS_NAME",
    "TAX_ID",
)
READ_ONLY_CURRENCY_KEYS = ("providerRequiredCustomerFields",)


@dataclass(frozen=True, slots=True)
class InvalidBody:
    """A PATCH body and the fields in it that break a stated rule."""

    body: dict[str, Any]
    invalid: tuple[FieldPath, ...]
    rules: tuple[str, ...]


def known_currency_codes(config: Mapping[str, Any]) -> list[str]:
    """The currency codes a PlatformConfig already lists."""
    entries = config.get("supportedCurrencies")
    if not isinstance(entries, list):
        return []
    return [e["currencyCode"] for e in entries if isinstance(e, dict) and e.get("currencyCode")]


def fee_config(
    names: Mapping[str, str], currency: str, bps: int = 25, fixed: int = 10
) -> dict[str, Any]:
    """One feeConfigs entry, with the target's field names (see TargetProfile.fee_config_names)."""
    return {names["currency"]: currency, names["variable_bps"]: bps, names["fixed"]: fixed}


def editable_snapshot(config: Mapping[str, Any]) -> dict[str, Any]:
    """The writable part of a PlatformConfig, ready to PATCH back (restores a snapshot)."""
    body: dict[str, Any] = {}
    if "umaDomain" in config:
        body["umaDomain"] = config["umaDomain"]
    if isinstance(config.get("supportedCurrencies"), list):
        body["supportedCurrencies"] = [
            {k: v for k, v in entry.items() if k not in READ_ONLY_CURRENCY_KEYS}
            for entry in config["supportedCurrencies"]
            if isinstance(entry, dict)
        ]
    for key in ("feeConfigs", "cardTokenization2faConfig"):
        if key in config:
            body[key] = config[key]
    return body


_labels = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=12).filter(
    lambda s: s[0].isalpha()
)
uma_domains = st.builds(lambda a, b: f"{a}.{b}.example.com", _labels, _labels)

_counterparty_fields = st.lists(
    st.sampled_from(USER_INFO_FIELD_NAMES), unique=True, max_size=4
).flatmap(
    lambda names: st.tuples(*[st.booleans() for _ in names]).map(
        lambda flags: [{"name": n, "mandatory": f} for n, f in zip(names, flags, strict=True)]
    )
)


def _currency_entry(code: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.tuples(
        st.integers(min_value=0, max_value=10**6), st.integers(min_value=0, max_value=10**9)
    ).flatmap(
        lambda amounts: _counterparty_fields.map(
            lambda fields: {
                "currencyCode": code,
                "minAmount": min(amounts),
                "maxAmount": max(amounts),
                "requiredCounterpartyFields": fields,
            }
        )
    )


def _currency_lists(codes: Sequence[str]) -> st.SearchStrategy[list[dict[str, Any]]]:
    return st.lists(st.sampled_from(list(codes)), min_size=1, unique=True).flatmap(
        lambda chosen: st.tuples(*[_currency_entry(c) for c in chosen]).map(list)
    )


def valid_config_patches(
    known_codes: Sequence[str], sink_url: str | None = None
) -> st.SearchStrategy[dict[str, Any]]:
    """PATCH bodies every conforming target accepts: a non-empty subset of stated fields.

    ``known_codes`` are currency codes the target already lists; ``sink_url`` is the only
    webhook endpoint used, so generated bodies never steal the run's webhooks.
    """
    fields: dict[str, st.SearchStrategy[Any]] = {"umaDomain": uma_domains}
    if known_codes:
        fields["supportedCurrencies"] = _currency_lists(known_codes)
    if sink_url:
        fields["webhookEndpoint"] = st.just(sink_url)
    return st.fixed_dictionaries({}, optional=fields).filter(bool)


# Each breaker returns (value, rule) for a field; rules name the clause they break.
_BAD_DOMAINS = ["not a domain", "https://pay.example.com", "", 42]
_BAD_WEBHOOKS = ["http://example.com/hooks", "not-a-url", "ftp://example.com/hooks", 17]
_BAD_CODES = ["usd", "US", "", 840, "U$D"]
_BAD_AMOUNTS = ["100", 1.5, True, None]
_BAD_FIELD_NAMES = ["SHOE_SIZE", "full_name", 3]
_BAD_MANDATORY = ["yes", 1, None]
_COUNTERPARTY_BREAKERS = ("counterpartyName", "counterpartyMandatory", "missingCounterparty")


@st.composite
def invalid_config_patches(
    draw: st.DrawFn, known_codes: Sequence[str], fee_names: Mapping[str, str]
) -> InvalidBody:
    # fee_names maps "currency", "variable_bps" and "fixed" to the target's field names
    """A body breaking one to four stated rules, with the path of each broken field."""
    base = draw(valid_config_patches(known_codes or ["USD"]))
    base.setdefault("umaDomain", draw(uma_domains))
    if "supportedCurrencies" not in base:
        base["supportedCurrencies"] = [
            draw(_currency_entry(known_codes[0] if known_codes else "USD"))
        ]
    body = copy.deepcopy(base)
    currencies = body["supportedCurrencies"]
    breakers = [
        "umaDomain",
        "webhookEndpoint",
        "currencyCode",
        "minAmount",
        "maxAmount",
        "missingAmount",
        "counterpartyName",
        "counterpartyMandatory",
        "missingCounterparty",
        "feeCurrency",
    ]
    chosen = draw(st.lists(st.sampled_from(breakers), min_size=1, max_size=4, unique=True))
    # the counterparty breakers replace the same list: keep at most one of them
    counterparty = [b for b in chosen if b in _COUNTERPARTY_BREAKERS]
    chosen = [b for b in chosen if b not in _COUNTERPARTY_BREAKERS] + counterparty[:1]
    broken: dict[FieldPath, str] = {}
    for breaker in chosen:
        index = draw(st.integers(0, len(currencies) - 1))
        entry = currencies[index]
        prefix: FieldPath = ("supportedCurrencies", index)
        path: FieldPath
        if breaker == "umaDomain":
            body["umaDomain"] = draw(st.sampled_from(_BAD_DOMAINS))
            path, rule = ("umaDomain",), "umaDomain is the domain part of UMA addresses"
        elif breaker == "webhookEndpoint":
            body["webhookEndpoint"] = draw(st.sampled_from(_BAD_WEBHOOKS))
            path, rule = ("webhookEndpoint",), "webhookEndpoint is an HTTPS URL"
        elif breaker == "currencyCode":
            entry["currencyCode"] = draw(st.sampled_from(_BAD_CODES))
            path, rule = (*prefix, "currencyCode"), "currencyCode is ISO 4217"
        elif breaker in ("minAmount", "maxAmount"):
            value = draw(st.sampled_from(_BAD_AMOUNTS))
            if value is None:
                entry.pop(breaker, None)
            else:
                entry[breaker] = value
            path, rule = (*prefix, breaker), f"{breaker} is a required integer"
        elif breaker == "missingAmount":
            key = draw(st.sampled_from(["minAmount", "maxAmount"]))
            entry.pop(key, None)
            path, rule = (*prefix, key), f"{key} is required"
        elif breaker == "counterpartyName":
            entry["requiredCounterpartyFields"] = [
                {"name": draw(st.sampled_from(_BAD_FIELD_NAMES)), "mandatory": True}
            ]
            path = (*prefix, "requiredCounterpartyFields", 0, "name")
            rule = "requiredCounterpartyFields names are UserInfoFieldName values"
        elif breaker == "counterpartyMandatory":
            entry["requiredCounterpartyFields"] = [
                {"name": "FULL_NAME", "mandatory": draw(st.sampled_from(_BAD_MANDATORY))}
            ]
            path = (*prefix, "requiredCounterpartyFields", 0, "mandatory")
            rule = "requiredCounterpartyFields entries carry a boolean mandatory"
        elif breaker == "missingCounterparty":
            entry.pop("requiredCounterpartyFields", None)
            path, rule = (
                (*prefix, "requiredCounterpartyFields"),
                "requiredCounterpartyFields is required",
            )
        else:  # feeCurrency
            body["feeConfigs"] = [fee_config(fee_names, "EUR", bps=50, fixed=0)]
            path = ("feeConfigs", 0, fee_names["currency"])
            rule = "fee configuration applies to USD source currency only"
        broken.setdefault(path, rule)
    return InvalidBody(body, tuple(broken), tuple(broken.values()))
