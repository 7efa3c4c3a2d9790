"""Stablecoin issuance (§4 Cards, stablecoins, agents, auth, sandbox: ``/stablecoins``,
``/stablecoins/{stablecoinId}/mints``, ``/burns``, ``/operations``; bodies and records not
shown). The sandbox issues no stablecoins: ``GET /stablecoins`` answers an empty page
behind the usual authentication, and the other paths are unknown (``404``). Exchange-rate,
discovery and API-token endpoints are not served (their paths and bodies are not shown)."""

from __future__ import annotations

from starlette.responses import JSONResponse, Response

from reference.kernel import pages
from reference.kernel.routing import ApiRequest, Operation, api_route


def list_stablecoins(request: ApiRequest) -> Response:
    """``GET /stablecoins?limit=&cursor=`` → an empty page."""
    answer = pages.page(request.services.settings, request.query, [], record_id=str, render=dict)
    return JSONResponse(answer)


ROUTES = [api_route("/stablecoins", Operation("GET", list_stablecoins))]
