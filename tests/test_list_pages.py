"""Reading a list page by page (``conformance/exchange/list_pages.py``): with the profile's
``[pagination]`` settings every page is read; without them the first page only, and a record
not on it skips the test, never fails it (issue 34)."""

from __future__ import annotations

import httpx
import pytest

from conformance.exchange.list_pages import Pagination, read_list, skip_unlisted

from .answering_client import client_answering

# an endpoint §4 does not name, so the client holds its items to no schema
RECORDS = [{"id": f"r{n}", "customerId": "c"} for n in range(25)]
VARIANT = Pagination("pageToken", "nextPageToken", "items")


def paged(request: httpx.Request) -> httpx.Response:
    """Oldest first, 10 a page, ``pageToken`` in, ``{items, nextPageToken}`` out."""
    start = int(request.url.params.get("pageToken") or 0)
    following = start + 10 if start + 10 < len(RECORDS) else None
    return httpx.Response(
        200, json={"items": RECORDS[start : start + 10], "nextPageToken": following}
    )


def test_with_the_settings_every_page_is_read():
    listing = read_list(client_answering(paged), "/widgets", {"customerId": "c"}, VARIANT,
                        clause="§4", statement="lists")  # fmt: skip
    assert [r["id"] for r in listing.items] == [r["id"] for r in RECORDS]
    assert listing.complete and len(listing.answers) == 3


def test_without_the_settings_the_first_page_is_read_and_a_missing_record_skips():
    listing = read_list(client_answering(paged), "/widgets", {}, Pagination(),
                        clause="§4", statement="lists")  # fmt: skip
    assert len(listing.items) == 10 and not listing.complete
    with pytest.raises(pytest.skip.Exception) as skipped:
        skip_unlisted(listing, "widget r24")
    message = str(skipped.value)
    for key in ("cursor_parameter", "next_member", "items_member"):
        assert f"[pagination] {key}" in message


def test_profile_settings_make_a_pagination():
    assert Pagination.of({"cursor_parameter": "page", "next_member": "next"}).pages
    assert not Pagination.of({}).pages
    assert Pagination.of(None) == Pagination()


def test_a_target_refusing_an_unstated_filter_is_asked_without_it():
    def strict(request: httpx.Request) -> httpx.Response:
        if "customerId" in request.url.params:
            errors = [{"field": "customerId", "constraint": "UNKNOWN"}]
            body = {"errorCode": "INVALID_INPUT", "details": {"errors": errors}}
            return httpx.Response(400, json=body)
        return paged(request)

    listing = read_list(client_answering(strict), "/widgets", {"customerId": "c"}, VARIANT,
                        clause="§4", statement="lists", unstated=("customerId",))  # fmt: skip
    assert len(listing.items) == len(RECORDS) and listing.complete
