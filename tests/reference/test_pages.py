"""Paging of the list endpoints (SANDBOX.md, "Lists"): ``limit`` and an opaque ``cursor``,
``{"data": [...], "nextCursor": ...}``; query parameters an operation does not take are
ignored, never refused."""

from __future__ import annotations

import httpx

from .customer_helpers import created, individual
from .money_helpers import external


def test_a_list_pages_by_limit_and_cursor(client: httpx.Client) -> None:
    customer = created(client.post("/customers", json=individual()))
    made = [external(client, customer["id"], kind) for kind in ("US_ACCOUNT", "WALLET")]
    made.append(external(client, customer["id"], "US_ACCOUNT"))
    query = {"customerId": customer["id"], "limit": "2"}
    first = client.get("/customers/external-accounts", params=query)
    assert first.status_code == 200, first.text
    assert first.json()["data"] == made[:2] and first.json()["nextCursor"]
    after = {**query, "cursor": first.json()["nextCursor"]}
    second = client.get("/customers/external-accounts", params=after)
    assert second.json() == {"data": made[2:], "nextCursor": None}


def test_the_done_when_lists_answer_with_a_limit(client: httpx.Client) -> None:
    customer = created(client.post("/customers", json=individual()))
    for path, query in (
        ("/transactions", {"limit": "2"}),
        ("/customers/internal-accounts", {"customerId": customer["id"], "limit": "2"}),
        ("/customers/agreements", {"limit": "1"}),
        ("/stablecoins", {"limit": "100"}),
    ):
        answer = client.get(path, params=query)
        assert answer.status_code == 200, (path, answer.text)
        assert len(answer.json()["data"]) <= int(query["limit"])
        assert "nextCursor" in answer.json()


def test_unknown_query_parameters_are_ignored(client: httpx.Client) -> None:
    customer = created(client.post("/customers", json=individual()))
    for path in ("/transactions", "/customers/internal-accounts", "/verifications", "/config"):
        query = {"customerId": customer["id"], "sortBy": "x", "includeDeleted": "1"}
        answer = client.get(path, params=query)
        assert answer.status_code != 400, (path, answer.text)


def test_a_bad_limit_or_a_foreign_cursor_is_invalid_input(client: httpx.Client) -> None:
    for query in ({"limit": "0"}, {"limit": "101"}, {"limit": "two"}, {"cursor": "nope"}):
        answer = client.get("/transactions", params=query)
        assert answer.status_code == 400, (query, answer.text)
        assert answer.json()["code"] == "INVALID_INPUT"


def test_a_repeated_limit_or_cursor_is_invalid_input(client: httpx.Client) -> None:
    """``?limit=5&limit=x``: no one value is the page's; the refusal names the parameter."""
    answer = client.get("/customers/agreements", params=[("limit", "5"), ("limit", "")])
    assert answer.status_code == 400, answer.text
    assert answer.json()["details"]["errors"][0]["field"] == "limit"
    assert "limit" in answer.json()["message"]
    answer = client.get("/transactions", params=[("cursor", ""), ("cursor", "")])
    assert answer.status_code == 400 and "cursor" in answer.json()["message"]
    assert client.get("/transactions", params={"limit": ""}).status_code == 400  # no size
    assert client.get("/transactions", params={"cursor": ""}).status_code == 200  # first page
