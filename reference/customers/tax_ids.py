"""Business tax-id formats by country (§2 Customer: "taxId validated against country").

The formats are the reference's choice (SANDBOX.md, "Customers"): the shape of each
country's company tax number, without check-digit arithmetic.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

_FORMATS: Mapping[str, tuple[re.Pattern[str], str]] = MappingProxyType(
    {
        "US": (re.compile(r"\d{2}-\d{7}|\d{9}"), "an EIN: NN-NNNNNNN or 9 digits"),
        "GB": (re.compile(r"\d{10}|GB\d{9}"), "a UTR of 10 digits or GB and 9 digits"),
        "DE": (re.compile(r"\d{10,11}|DE\d{9}"), "10 or 11 digits, or DE and 9 digits"),
        "MX": (re.compile(r"[A-Za-z0-9&Ññ]{12,13}"), "an RFC of 12 or 13 characters"),
        "BR": (re.compile(r"\d{14}"), "a CNPJ of 14 digits"),
        "CA": (re.compile(r"\d{9}"), "a business number of 9 digits"),
    }
)
_OTHER = (re.compile(r"[A-Za-z0-9-]{4,20}"), "4 to 20 letters, digits or hyphens")
# A CNPJ is often written 12.345.678/0001-90; the punctuation carries no information.
_CNPJ_PUNCTUATION = re.compile(r"[./-]")


def tax_id_problem(country: str, tax_id: str) -> str | None:
    """None when ``tax_id`` has the shape ``country`` uses, else what it should look like."""
    pattern, expected = _FORMATS.get(country, _OTHER)
    candidate = _CNPJ_PUNCTUATION.sub("", tax_id) if country == "BR" else tax_id
    if pattern.fullmatch(candidate):
        return None
    return f"must be {expected} for country {country}"
