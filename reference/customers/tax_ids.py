"""Business tax-id formats by country (§2 Customer: "taxId validated against country").

The formats are the reference's choice (SANDBOX.md, "Customers"): the shape of each
country's company tax number, without check-digit arithmetic.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

# Digits are ASCII ([0-9], not \\d, which takes any script's digits). Each expression is
# also the taxId pattern the OpenAPI document the reference serves by declares for its
# country (common.json BusinessInfo, ``x-reference-choice``), so the two cannot drift.
FORMATS: Mapping[str, tuple[re.Pattern[str], str]] = MappingProxyType(
    {
        "US": (re.compile(r"[0-9]{2}-[0-9]{7}|[0-9]{9}"), "an EIN: NN-NNNNNNN or 9 digits"),
        "GB": (re.compile(r"[0-9]{10}|GB[0-9]{9}"), "a UTR of 10 digits or GB and 9 digits"),
        "DE": (re.compile(r"[0-9]{10,11}|DE[0-9]{9}"), "10 or 11 digits, or DE and 9 digits"),
        "MX": (re.compile(r"[A-Za-z0-9&Ññ]{12,13}"), "an RFC of 12 or 13 characters"),
        # A CNPJ is often written 12.345.678/0001-90; the punctuation carries no information.
        "BR": (re.compile(r"([./-]*[0-9]){14}[./-]*"), "a CNPJ of 14 digits"),
        "CA": (re.compile(r"[0-9]{9}"), "a business number of 9 digits"),
    }
)
OTHER = (re.compile(r"[A-Za-z0-9-]{4,20}"), "4 to 20 letters, digits or hyphens")


def tax_id_problem(country: str, tax_id: str) -> str | None:
    """None when ``tax_id`` has the shape ``country`` uses, else what it should look like."""
    pattern, expected = FORMATS.get(country, OTHER)
    if pattern.fullmatch(tax_id):
        return None
    return f"must be {expected} for country {country}"
