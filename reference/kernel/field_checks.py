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
from datetime import UTC, date, datetime, timedelta
from typing import Any

from reference.kernel.clock import iso
from reference.kernel.countries import is_country_code
from reference.kernel.validation import Problems, at

Check = Callable[[Problems, str, Any], Any]

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_EMAIL = re.compile(r"[^@\s]+@[^@\s.]+(\.[^@\s.]+)*\.[A-Za-z]{2,}")
_E164 = re.compile(r"\+[0-9]{7,15}")
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
    """A string with something in it."""
    checked = problems.string(path, value)
    if checked is None:
        return None
    if not checked.strip():
        problems.add(path, "MIN_LENGTH", "must not be empty")
        return None
    return checked


def past_date(problems: Problems, path: str, value: Any) -> str | None:
    """``YYYY-MM-DD``, a real calendar date, not after today (UTC)."""
    checked = problems.string(path, value)
    if checked is None:
        return None
    try:
        if not _DATE.fullmatch(checked):
            raise ValueError(checked)
        parsed = date.fromisoformat(checked)
    except ValueError:
        problems.add(path, "DATE", "must be a calendar date YYYY-MM-DD")
        return None
    if parsed > datetime.now(UTC).date():
        problems.add(path, "FUTURE_DATE", "must not be in the future")
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
    if len(checked) > 254 or not _EMAIL.fullmatch(checked):
        problems.add(path, "EMAIL", "must be an email address local@domain.tld")
        return None
    return checked


def phone(problems: Problems, path: str, value: Any) -> str | None:
    """An E.164 number: ``+`` and 7 to 15 digits."""
    checked = problems.string(path, value)
    if checked is None:
        return None
    if not _E164.fullmatch(checked):
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
    """An ISO 8601 timestamp with a time zone, not in the future; returned in UTC ``Z``."""
    checked = problems.string(path, value)
    if checked is None:
        return None
    try:
        parsed = datetime.fromisoformat(checked.replace("Z", "+00:00"))
    except ValueError:
        parsed = None
    if parsed is None or parsed.tzinfo is None or "T" not in checked:
        problems.add(path, "TIMESTAMP", "must be an ISO 8601 timestamp with a time zone")
        return None
    if parsed > datetime.now(UTC):
        problems.add(path, "FUTURE_TIMESTAMP", "must not be in the future")
        return None
    # Echo a UTC value as sent, so a client comparing strings sees its own; other offsets
    # are rewritten in UTC, the only form the interface uses for timestamps.
    return checked if parsed.utcoffset() == timedelta(0) else iso(parsed)


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
