"""HTTP Basic authentication (§5 Authentication) and the 401 envelope."""

from __future__ import annotations

import base64

import httpx
import pytest

from reference.agents.bearer import REASON_UNKNOWN as REASON_UNKNOWN_AGENT_TOKEN
from reference.kernel.auth import (
    REASON_BAD_BASE64,
    REASON_MISSING,
    REASON_NO_COLON,
    REASON_NOT_BASIC,
    REASON_PRODUCTION,
    REASON_UNKNOWN_TOKEN,
    REASON_WRONG_SECRET,
)

from .reference_helpers import RunningSandbox


def basic(raw: bytes) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(raw).decode()}


def get_config(sandbox: RunningSandbox, headers: dict[str, str]) -> httpx.Response:
    return httpx.get(f"{sandbox.base_url}/config", headers=headers)


def assert_unauthorized(response: httpx.Response, reason: str) -> None:
    assert response.status_code == 401, response.text
    assert response.json() == {
        "status": 401,
        "code": "UNAUTHORIZED",
        "message": "authentication failed",
        "reason": reason,
    }
    assert response.headers["WWW-Authenticate"].startswith("Basic realm=")


def test_missing_header_is_401(sandbox: RunningSandbox) -> None:
    assert_unauthorized(get_config(sandbox, {}), REASON_MISSING)


@pytest.mark.parametrize(
    ("headers", "reason"),
    [
        ({"Authorization": "Bearer abc"}, REASON_UNKNOWN_AGENT_TOKEN),  # agents use Bearer
        ({"Authorization": "Token abc"}, REASON_NOT_BASIC),
        ({"Authorization": "Basic"}, REASON_NOT_BASIC),
        ({"Authorization": "Basic !!!not-base64!!!"}, REASON_BAD_BASE64),
        ({"Authorization": "Basic " + base64.b64encode(b"\xff\xfe").decode()}, REASON_BAD_BASE64),
        (basic(b"no-colon-here"), REASON_NO_COLON),
        (basic(b"tok_sbx_unknown:secret"), REASON_UNKNOWN_TOKEN),
    ],
    ids=[
        "bearer",
        "other-scheme",
        "empty-basic",
        "bad-base64",
        "not-utf8",
        "no-colon",
        "unknown-token",
    ],
)
def test_malformed_or_unknown_credentials_are_401(
    sandbox: RunningSandbox, headers: dict[str, str], reason: str
) -> None:
    assert_unauthorized(get_config(sandbox, headers), reason)


def test_wrong_secret_is_401(sandbox: RunningSandbox) -> None:
    token_id, _ = sandbox.credentials("primary")
    assert_unauthorized(
        get_config(sandbox, basic(f"{token_id}:wrong".encode())), REASON_WRONG_SECRET
    )


def test_production_credentials_are_refused_by_the_sandbox(sandbox: RunningSandbox) -> None:
    token_id, secret = sandbox.credentials("production")
    assert token_id.startswith("tok_prd_")
    response = get_config(sandbox, basic(f"{token_id}:{secret}".encode()))
    assert_unauthorized(response, REASON_PRODUCTION)


@pytest.mark.parametrize("which", ["primary", "second"])
def test_sandbox_credentials_of_both_platforms_work(sandbox: RunningSandbox, which: str) -> None:
    token_id, _ = sandbox.credentials(which)
    assert token_id.startswith("tok_sbx_")
    with sandbox.client(which) as client:
        assert client.get("/config").status_code == 200


def test_unknown_path_under_the_base_path_needs_credentials(sandbox: RunningSandbox) -> None:
    response = httpx.get(f"{sandbox.base_url}/no-such-thing")
    assert_unauthorized(response, REASON_MISSING)


def test_fixed_credentials_from_flags(launch) -> None:
    running = launch("--client-id", "tok_sbx_fixed", "--client-secret", "s3cret")
    assert running.credentials("primary") == ("tok_sbx_fixed", "s3cret")
    with running.client() as client:
        assert client.get("/config").status_code == 200
