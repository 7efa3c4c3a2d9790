"""Stablecoin issuance (§4 Cards, stablecoins, agents, auth, sandbox: ``/stablecoins``,
``/stablecoins/{stablecoinId}/mints``, ``/burns``, ``/operations``; bodies and records not
shown). The sandbox issues no stablecoins: ``GET /stablecoins`` answers ``{"data": []}``
behind the usual authentication, and the other paths are unknown (``404``). Exchange-rate,
discovery and API-token endpoints are not served (their paths and bodies are not shown)."""

from __future__ import annotations

from starlette.responses import JSONResponse, Response

from reference.kernel.routing import ApiRequest, Operation, api_route


def list_stablecoins(request: ApiRequest) -> Response:
    """``GET /stablecoins`` → ``{"data": []}``."""
    return JSONResponse({"data": []})


ROUTES = [api_route("/stablecoins", Operation("GET", list_stablecoins))]
