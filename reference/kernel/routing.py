"""How an API module declares a route: a synchronous handler taking an ``ApiRequest``.

``api_route`` reads and checks the body on the event loop through the one decoding layer
(``reference.kernel.request_body``: bounded by the operation's ``limit``, then JSON by
default, or the operation's own reader, e.g. a multipart form), then runs the handler, which
may use the database, where ``reference.kernel.sync_calls`` says: on the loop, or in a fault
mode in the thread pool.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import Headers, QueryParams
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from reference.kernel.auth import PLATFORM_SCOPE_KEY
from reference.kernel.platforms import Platform
from reference.kernel.request_body import JSON_LIMIT, BodyLimit, bounded, read_json_object
from reference.kernel.seams import seam
from reference.kernel.services import Services
from reference.kernel.sync_calls import call_sync

REQUEST_BODY = seam(
    "request.body",
    "the decoded body a handler is given (context: method, path, the route's template)",
)


@dataclass(frozen=True, slots=True)
class ApiRequest:
    """What a handler gets: the caller's platform, the parsed body and the services.

    ``root_url`` is scheme, host and port as the caller reached us, for links the sandbox
    serves outside the versioned API (hosted pages).
    """

    services: Services
    platform: Platform
    body: dict[str, Any]
    path_params: Mapping[str, Any]
    query: QueryParams
    headers: Headers
    root_url: str = ""


Handler = Callable[[ApiRequest], Response]
BodyReader = Callable[[Request], Awaitable[dict[str, Any]]]


@dataclass(frozen=True, slots=True)
class Operation:
    """One method of a path: its handler, and whether it takes a JSON object body.

    Without ``body`` any request body is ignored and the handler sees ``{}``; a ``reader``
    replaces the JSON reading (and implies a body). A body over ``limit`` is refused before
    the handler runs, whatever the operation does with it.
    """

    method: str
    handler: Handler
    body: bool = False
    reader: BodyReader | None = None
    limit: BodyLimit = JSON_LIMIT


class ApiRoute(Route):
    """A route of the API, keeping its operations so the route table tells which methods
    take a body and how large (the self-tests send every route what it reads)."""

    def __init__(
        self, path: str, endpoint: Callable[..., Any], operations: Mapping[str, Operation]
    ):
        super().__init__(path, endpoint, methods=list(operations), name=path)
        self.operations = dict(operations)


def api_route(path: str, *operations: Operation) -> ApiRoute:
    """A route under the versioned base path serving each of ``operations``.

    One route per path, so a 405 answer's ``Allow`` header lists every method of it.
    """
    by_method = {operation.method: operation for operation in operations}

    async def endpoint(request: Request) -> Response:
        operation = by_method[request.method if request.method != "HEAD" else "GET"]
        request = bounded(request, operation.limit)
        if operation.reader is not None:
            parsed = await operation.reader(request)
        else:
            parsed = await read_json_object(request) if operation.body else {}
        services: Services = request.app.state.services
        parsed = services.settings.seams.apply(
            REQUEST_BODY, parsed, method=operation.method, path=path
        )
        api_request = ApiRequest(
            services=services,
            platform=request.scope[PLATFORM_SCOPE_KEY],
            body=parsed,
            path_params=request.path_params,
            query=request.query_params,
            headers=request.headers,
            root_url=f"{request.url.scheme}://{request.url.netloc}",
        )
        return await call_sync(services.settings, operation.handler, api_request)

    return ApiRoute(path, endpoint, by_method)
