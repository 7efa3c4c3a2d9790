"""Checks for the fault modes of ``reference/faults/kernel.py``: the kernel: authentication,
the versioned base path, request handling; ``test_faults`` adds them to its ``CHECKS``."""

from __future__ import annotations

import httpx

from .reference_helpers import (
    FaultChecks,
    RunningSandbox,
    WebhookReceiver,
)

KERNEL_CHECKS = FaultChecks()
check = KERNEL_CHECKS.add


@check("auth-accept-missing")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client(None) as anonymous:
        assert anonymous.get("/config").status_code == 200


@check("auth-accept-wrong-secret")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    token_id, _ = sandbox.credentials()
    response = httpx.get(f"{sandbox.base_url}/config", auth=(token_id, "wrong"))
    assert response.status_code == 200


@check("auth-accept-production-keys")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client("production") as production:
        assert production.get("/config").status_code == 200


@check("auth-no-reason")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    response = httpx.get(f"{sandbox.base_url}/config")
    assert response.status_code == 401
    assert "reason" not in response.json()
    assert "reason" not in response.json().get("details", {})


@check("wrong-version-segment")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    assert sandbox.base_url.endswith("/2024-01-01")
    right = sandbox.base_url.replace("/2024-01-01", "/2025-10-13")
    token_id, secret = sandbox.credentials()
    assert httpx.get(f"{right}/config", auth=(token_id, secret)).status_code == 404
    with sandbox.client() as client:
        assert client.get("/config").status_code == 200


@check("validation-first-error-only")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        response = client.patch("/config", json={"umaDomain": 1, "feeConfigs": 2})
    assert response.status_code == 400
    assert len(response.json()["details"]["errors"]) == 1


@check("stablecoins-unauthenticated")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    answer = httpx.get(f"{sandbox.base_url}/stablecoins")
    assert answer.status_code == 200 and answer.json() == {"data": [], "nextCursor": None}


@check("sometimes-500")
def _(sandbox: RunningSandbox, receiver: WebhookReceiver) -> None:
    with sandbox.client() as client:
        for path in ("/customers", "/quotes"):  # every third answer of each, counted apart
            statuses = [client.post(path, json={}).status_code for _ in range(6)]
            assert statuses == [400, 400, 500, 400, 400, 500], (path, statuses)
        assert client.post("/verifications", json={}).status_code == 400  # not on the list
