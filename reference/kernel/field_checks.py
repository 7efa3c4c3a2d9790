"""Field checks shared by customers, beneficial owners, consents and documents.

Each check records its problem in a ``Problems`` collector and returns the normalised value,
or None when the value was invalid, so a validator can walk a whole body and report every
invalid field at once (§7 Errors). ``null`` is refused (``NOT_NULL``) wherever a field is
checked: the interface gives it no meaning on a request, on create as on PATCH.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Mapping
from datetime import date, datetime
from typing import Any

from reference.kernel.countries import is_country_code
from reference.kernel.validation import Problems, at

Check = Callable[[Problems, str, Any], Any]

# Each expression below is also written, anchored, in the schema the OpenAPI document the
# reference serves by declares for the field (``x-reference-choice``), so what it declares
# is what the reference accepts; tests/reference/test_declared_rules.py holds them equal.
# Blank is Unicode White_Space, spelled out: Python's ``\s`` and a JSON Schema engine's
# differ at the edges (U+001C..U+001F).
BLANK = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
NON_BLANK = re.compile(f"[^{BLANK}]")
# A year from 0001 (there is no year 0), a month, a day; the calendar judges the rest.
_YEAR = "([0-9]{3}[1-9]|[0-9]{2}[1-9][0-9]|[0-9][1-9][0-9]{2}|[1-9][0-9]{3})"
DATE = re.compile(_YEAR + "-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])")
# §Conventions: timestamps are ISO 8601 UTC strings; seconds to 59, any fraction.
TIMESTAMP = re.compile(
    DATE.pattern + "T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]+)?(Z|[+]00:00)"
)
EMAIL = re.compile(f"[^@{BLANK}]+@[^@{BLANK}.]+([.][^@{BLANK}.]+)*[.][A-Za-z]{{2,}}")
MAX_EMAIL = 254
E164 = re.compile(r"[+][0-9]{7,15}")
ADDRESS_REQUIRED = ("line1", "city", "postalCode", "country")


def pick(
    problems: Problems, obj: Mapping[str, Any], base: str, checks: Mapping[str, Check]
) -> dict[str, Any]:
    """The checked value of each key of ``checks`` present in ``obj``; a null one is
    ``NOT_NULL``: the interface gives null no meaning on a request, so it is refused."""
    result: dict[str, Any] = {}
    for key, check in checks.items():
        if key not in obj:
            continue
        value = obj[key]
        if value is None:
            problems.add(at(base, key), "NOT_NULL", "must not be null: omit it instead")
            continue
        checked = check(problems, at(base, key), value)
        if checked is not None:
            result[key] = checked
    return result


def text(problems: Problems, path: str, value: Any) -> str | None:
    """A string with something in it: a character that is not blank (``NON_BLANK``)."""
    checked = problems.string(path, value)
    if checked is None:
        return None
    if NON_BLANK.search(checked) is None:
        problems.add(path, "MIN_LENGTH", "must not be empty")
        return None
    return checked


def calendar_date(problems: Problems, path: str, value: Any) -> str | None:
    """``YYYY-MM-DD`` (``DATE``), a real calendar date. A date in the future is taken: a
    rule that moves with the clock cannot be declared in a document, and the interface
    states none."""
    checked = problems.string(path, value)
    if checked is None:
        return None
    try:
        if not DATE.fullmatch(checked):
            raise ValueError(checked)
        date.fromisoformat(checked)
    except ValueError:
        problems.add(path, "DATE", "must be a calendar date YYYY-MM-DD")
        return None
    return checked


def country(problems: Problems, path: str, value: Any) -> str | None:
    """An ISO 3166-1 alpha-2 code, upper case, actually assigned."""
    checked = problems.string(path, value)
    if checked is None:
        return None
    if not is_country_code(checked):
        problems.add(path, "ISO_3166", "must be an ISO 3166-1 alpha-2 country code")
        return None
    return checked


def email(problems: Problems, path: str, value: Any) -> str | None:
    """A mailbox ``local@domain.tld``."""
    checked = problems.string(path, value)
    if checked is None:
        return None
    if len(checked) > MAX_EMAIL or not EMAIL.fullmatch(checked):
        problems.add(path, "EMAIL", "must be an email address local@domain.tld")
        return None
    return checked


def phone(problems: Problems, path: str, value: Any) -> str | None:
    """An E.164 number: ``+`` and 7 to 15 digits."""
    checked = problems.string(path, value)
    if checked is None:
        return None
    if not E164.fullmatch(checked):
        problems.add(path, "E164", "must be an E.164 number: + and 7 to 15 digits")
        return None
    return checked


def address(problems: Problems, path: str, value: Any) -> dict[str, Any] | None:
    """An address object with ``line1``, ``city``, ``postalCode`` and ``country``."""
    obj = problems.object(path, value)
    if obj is None:
        return None
    before = len(problems)
    for key in ADDRESS_REQUIRED:
        problems.required(obj, key, path)
    checked = pick(
        problems,
        obj,
        path,
        {
            "line1": text,
            "line2": text,
            "city": text,
            "state": text,
            "postalCode": text,
            "country": country,
        },
    )
    return checked if len(problems) == before else None


def string_list(problems: Problems, path: str, value: Any, item: Check = text) -> list[Any] | None:
    """An array whose every item passes ``item``."""
    items = problems.array(path, value)
    if items is None:
        return None
    before = len(problems)
    checked = [item(problems, at(path, index), entry) for index, entry in enumerate(items)]
    return checked if len(problems) == before else None


def timestamp(problems: Problems, path: str, value: Any) -> str | None:
    """An ISO 8601 UTC timestamp (``TIMESTAMP``: ``Z`` or ``+00:00``, §Conventions) of a
    real calendar day, taken as sent. One in the future is taken, as a date is."""
    checked = problems.string(path, value)
    if checked is None:
        return None
    try:
        if not TIMESTAMP.fullmatch(checked):
            raise ValueError(checked)
        datetime.fromisoformat(checked.replace("Z", "+00:00"))
    except ValueError:
        problems.add(path, "TIMESTAMP", "must be an ISO 8601 UTC timestamp (Z or +00:00)")
        return None
    return checked


def ip_address(problems: Problems, path: str, value: Any) -> str | None:
    """An IPv4 or IPv6 address."""
    checked = problems.string(path, value)
    if checked is None:
        return None
    try:
        ipaddress.ip_address(checked)
    except ValueError:
        problems.add(path, "IP_ADDRESS", "must be an IPv4 or IPv6 address")
        return None
    return checked
