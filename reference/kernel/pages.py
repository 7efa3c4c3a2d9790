"""Paging of every list endpoint (SANDBOX.md, "Lists").

§4 shows neither the pagination parameters nor the envelope of a list ("List endpoints:
pagination parameters and response envelope: not shown"). The reference takes ``limit``
(1..100, default 100) and an opaque ``cursor`` and answers ``{"data": [...], "nextCursor":
"<opaque>" | null}``. The variant reference (``serve --variant``) pages otherwise, oldest
first, 10 a page, under its own names (``PageStyle.VARIANT``), so the suite's
``[pagination]`` settings are exercised.

A cursor names the last record of the page read (its id, base64url-encoded), so a record
added at the head of a newest-first list never shifts the next page.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reference.kernel.settings import ServerSettings
from reference.kernel.validation import Problems


@dataclass(frozen=True, slots=True)
class PageStyle:
    """How one server pages: its query parameters, members, page size and order."""

    cursor_param: str
    size_param: str
    next_member: str
    items_member: str
    default_size: int
    max_size: int
    oldest_first: bool  # True: every list oldest first, whatever its own order


REFERENCE = PageStyle("cursor", "limit", "nextCursor", "data", 100, 100, oldest_first=False)
VARIANT = PageStyle("pageToken", "pageSize", "nextPageToken", "items", 10, 10, oldest_first=True)


def style_of(settings: ServerSettings) -> PageStyle:
    """How this server pages: the variant's way under ``serve --variant``."""
    return VARIANT if settings.variant else REFERENCE


def describe(style: PageStyle) -> dict[str, str]:
    """The suite's ``[pagination]`` settings for ``style`` (the start-up line prints them)."""
    return {
        "cursor_parameter": style.cursor_param,
        "next_member": style.next_member,
        "items_member": style.items_member,
    }


def _encode(record_id: str) -> str:
    return base64.urlsafe_b64encode(f"after:{record_id}".encode()).decode().rstrip("=")


def _decode(cursor: str) -> str | None:
    """The record id a cursor names, or None for a cursor the sandbox never gave."""
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return text.removeprefix("after:") if text.startswith("after:") else None


def _once(query: Mapping[str, str], name: str, problems: Problems) -> bool:
    """Whether ``name`` is given at most once: of several values (``?limit=5&limit=x``) none
    is the page's, so the request names what it repeats."""
    getlist = getattr(query, "getlist", None)
    count = len(getlist(name)) if getlist is not None else int(name in query)
    if count > 1:
        problems.add(name, "REPEATED", f"{name} is given {count} times; give it once")
    return count <= 1


def _size(style: PageStyle, query: Mapping[str, str], problems: Problems) -> int:
    if not _once(query, style.size_param, problems):
        return style.default_size
    raw = query.get(style.size_param)
    if raw is None:  # an empty one (`?limit=`) is no size: refused below, as `?limit=x` is
        return style.default_size
    number = int(raw) if raw.isdigit() and len(raw) < 10 else None
    if number is None or not 1 <= number <= style.max_size:
        problems.add(style.size_param, "RANGE", f"must be an integer from 1 to {style.max_size}")
        return style.default_size
    return number


def page(
    settings: ServerSettings,
    query: Mapping[str, str],
    records: Sequence[Any],
    *,
    record_id: Callable[[Any], str],
    render: Callable[[Any], Any],
    newest_first: bool = False,
) -> dict[str, Any]:
    """The answer of a list endpoint: the page of ``records`` (in the list's own order,
    newest first when ``newest_first``) the query asks for, and the cursor of the next.

    A malformed ``limit`` or a cursor the sandbox never gave is ``400 INVALID_INPUT``."""
    style = style_of(settings)
    problems = Problems()
    size = _size(style, query, problems)
    ordered = list(reversed(records)) if newest_first and style.oldest_first else list(records)
    start = 0
    cursor = query.get(style.cursor_param) if _once(query, style.cursor_param, problems) else None
    if cursor:
        after = _decode(cursor)
        ids = [record_id(r) for r in ordered]
        if after is None or after not in ids:
            problems.add(style.cursor_param, "CURSOR", "is not a cursor this list gave")
        else:
            start = ids.index(after) + 1
    problems.raise_if_any()
    chosen = ordered[start : start + size]
    more = start + size < len(ordered)
    following = _encode(record_id(chosen[-1])) if more and chosen else None
    return {style.items_member: [render(r) for r in chosen], style.next_member: following}
