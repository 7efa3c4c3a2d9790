"""Reading a list endpoint page by page (§4 "List endpoints: pagination parameters and
response envelope: not shown").

A target pages however it chose. The profile's optional ``[pagination]`` settings say how:
the query parameter that carries the cursor or page (``cursor_parameter``), the answer's
member that gives the next one (``next_member``) and the member holding the items
(``items_member``). With them the suite reads every page; without them it reads the first
page only, and a record not on it is not a failure: the test skips, naming the settings
(``skip_unlisted``). Either way the items are found as ``list_items`` finds them when no
member is named.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn

import pytest

from conformance.contract import endpoint_schemas as contract
from conformance.exchange.assertions import required_json
from conformance.exchange.client import ApiResponse, TargetClient
from conformance.ground.profile import PAGINATION_KEYS

__all__ = ["MAX_PAGES", "PAGINATION_KEYS", "Listing", "Pagination", "read_list", "skip_unlisted"]

MAX_PAGES = 500  # a target whose cursor never ends is not read forever


@dataclass(frozen=True, slots=True)
class Pagination:
    """How the target pages (the profile's ``[pagination]``); empty when not given."""

    cursor_parameter: str | None = None
    next_member: str | None = None
    items_member: str | None = None

    @classmethod
    def of(cls, settings: Mapping[str, str] | None) -> Pagination:
        """From the profile's ``[pagination]`` table (unknown keys are refused there)."""
        given = dict(settings or {})
        return cls(*(given.get(key) or None for key in PAGINATION_KEYS))

    @property
    def pages(self) -> bool:
        """Whether the suite knows enough to read past the first page."""
        return bool(self.cursor_parameter and self.next_member)


@dataclass(slots=True)
class Listing:
    """The items a list answered, and whether they are the whole list."""

    items: list[dict[str, Any]] = field(default_factory=list)
    complete: bool = False
    path: str = ""
    answers: list[ApiResponse] = field(default_factory=list)


def _items(body: Any, pagination: Pagination) -> list[Any] | None:
    if pagination.items_member and isinstance(body, Mapping):
        named = body.get(pagination.items_member)
        return named if isinstance(named, list) else None
    return contract.list_items(body)


def read_list(
    client: TargetClient,
    path: str,
    params: Mapping[str, str],
    pagination: Pagination,
    *,
    clause: str,
    statement: str,
    unstated: Collection[str] = (),
) -> Listing:
    """Every page of ``GET path?params`` when the pagination is known, else the first;
    each page must answer 200. ``unstated`` names parameters the interface does not state
    (a filter sent to narrow the list, never relied on): a target that refuses them with
    400 is asked again without them."""
    __tracebackhide__ = True
    listing = Listing(path=path)
    params = dict(params)
    query = dict(params)
    for _ in range(MAX_PAGES):
        response = client.get(path, params=query)
        if response.status == 400 and any(name in query for name in unstated):
            params = {k: v for k, v in params.items() if k not in unstated}
            query = {k: v for k, v in query.items() if k not in unstated}
            response = client.get(path, params=query)
        body = required_json(response, clause, statement, status=200)
        listing.answers.append(response)
        listing.items.extend(i for i in _items(body, pagination) or [] if isinstance(i, dict))
        if not pagination.pages:
            return listing
        following = body.get(pagination.next_member) if isinstance(body, Mapping) else None
        if following in (None, "", False):
            listing.complete = True
            return listing
        query = {**dict(params), str(pagination.cursor_parameter): str(following)}
    return listing


def skip_unlisted(listing: Listing, what: str) -> NoReturn:
    """Skip: ``what`` is not on the part of the list read, and the rest could not be read."""
    settings = ", ".join(f"[pagination] {key}" for key in PAGINATION_KEYS)
    pytest.skip(
        f"{what} is not on the first page of GET {listing.path}; reading further needs the "
        f"target's pagination (§4: not shown): set --pagination (the profile's {settings})"
    )
