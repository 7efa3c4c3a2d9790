"""The ``UserInfoFieldName`` vocabulary and what the sandbox's provider demands per currency.

``providerRequiredCustomerFields`` of a ``supportedCurrencies`` entry is computed from the
table below; the same table tells the customer endpoints which fields a customer who
transacts in that currency must carry (§2 PlatformConfig).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

USER_INFO_FIELD_NAMES: tuple[str, ...] = (
    "FULL_NAME",
    "BIRTH_DATE",
    "NATIONALITY",
    "ADDRESS",
    "PHONE_NUMBER",
    "EMAIL",
    "BUSINESS_NAME",
    "TAX_ID",
)

# Our sandbox provider's rules; the interface leaves the real table unspecified.
_PROVIDER_REQUIRED: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "USD": ("FULL_NAME", "BIRTH_DATE", "ADDRESS"),
        "EUR": ("FULL_NAME", "BIRTH_DATE", "NATIONALITY", "ADDRESS"),
        "GBP": ("FULL_NAME", "BIRTH_DATE", "ADDRESS"),
        "MXN": ("FULL_NAME", "BIRTH_DATE", "NATIONALITY"),
        "BRL": ("FULL_NAME", "BIRTH_DATE", "TAX_ID"),
    }
)
_PROVIDER_DEFAULT = ("FULL_NAME", "BIRTH_DATE")


def provider_required_customer_fields(currency_code: str) -> list[str]:
    """The customer fields the provider requires of anyone transacting in this currency."""
    return list(_PROVIDER_REQUIRED.get(currency_code, _PROVIDER_DEFAULT))
