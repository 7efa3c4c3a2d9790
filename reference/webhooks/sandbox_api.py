"""Sandbox-only endpoints (§4 Cards, stablecoins, agents, auth, sandbox)."""

from __future__ import annotations

from starlette.responses import JSONResponse, Response

from reference.kernel.routing import ApiRequest, Operation, api_route


def send_test_webhook(request: ApiRequest) -> Response:
    """``POST /sandbox/webhooks/test``: queue a ``TEST`` event to the configured endpoint."""
    webhook_id, endpoint = request.services.webhooks.send_test_event(request.platform.id)
    return JSONResponse({"webhookId": webhook_id, "webhookEndpoint": endpoint})


ROUTES = [
    api_route("/sandbox/webhooks/test", Operation("POST", send_test_webhook)),
]
