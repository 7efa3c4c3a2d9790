"""The error envelope for routing errors and unreadable bodies (§7; SANDBOX.md)."""

from __future__ import annotations

import httpx
import pytest

from reference import INTERFACE_VERSION

from .reference_helpers import RunningSandbox


def test_unknown_path_is_404_in_the_envelope(client: httpx.Client) -> None:
    response = client.get("/no-such-resource")
    assert response.status_code == 404
    body = response.json()
    assert body["status"] == 404 and body["code"] == "NOT_FOUND" and body["message"]


def test_path_outside_the_version_is_404(sandbox: RunningSandbox) -> None:
    root = sandbox.base_url.removesuffix(f"/{INTERFACE_VERSION}")
    response = httpx.get(f"{root}/2024-01-01/config")
    assert response.status_code == 404
    assert response.json()["code"] == "NOT_FOUND"


def test_unknown_method_is_405_in_the_envelope(client: httpx.Client) -> None:
    response = client.delete("/config")
    assert response.status_code == 405
    body = response.json()
    assert body["status"] == 405 and body["code"] == "METHOD_NOT_ALLOWED"
    assert set(response.headers["Allow"].replace(" ", "").split(",")) >= {"GET", "PATCH"}


@pytest.mark.parametrize(
    ("content", "constraint"),
    [
        (b"{not json", "JSON"),
        (b"[1, 2]", "TYPE_OBJECT"),
        (b'"text"', "TYPE_OBJECT"),
        (b"", "REQUIRED"),
        (b'{"minAmount": NaN}', "JSON"),
    ],
    ids=["malformed", "array", "string", "empty", "nan"],
)
def test_unreadable_body_is_400_on_field_body(
    client: httpx.Client, content: bytes, constraint: str
) -> None:
    response = client.patch(
        "/config", content=content, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_INPUT"
    [error] = response.json()["details"]["errors"]
    assert (error["field"], error["constraint"]) == ("body", constraint)
