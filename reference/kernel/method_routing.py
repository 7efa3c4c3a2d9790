"""Every path of the API answers a method it does not declare with 405 and an ``Allow``
header (SANDBOX.md, error envelope: unknown method → 405 ``METHOD_NOT_ALLOWED``).

Starlette alone gets two cases wrong: a path whose template is declared in two modules
answers 405 with the ``Allow`` of whichever route comes first, and a path that also fits a
less literal template (``GET /customers/external-accounts`` against ``GET
/customers/{customerId}``) is served by that template instead of being refused. So the path
is matched to its template first, literal segments before parameters, and only then the
method: :class:`RouteTable` answers 405 when the best templates lack the method, and
otherwise serves the request with the first route of the best templates that declares it.

The table is one route in front of the router, so a request is matched against only the
templates with its number of segments and its first segment (a handful), not against every
route's pattern in turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from starlette._utils import get_route_path  # the path inside the mount, as Route sees it
from starlette.exceptions import HTTPException
from starlette.routing import BaseRoute, Match, Route
from starlette.types import Receive, Scope, Send

_ALLOW_KEY = "reference.allow"  # set when the answer is 405: the methods to list
_ROUTE_KEY = "reference.route"  # set otherwise: the route that serves the request

# (number of "/" in the path, first segment or None for a parameter there)
_Bucket = tuple[int, str | None]


def literal_rank(template: str) -> tuple[int, ...]:
    """1 per fixed segment, 0 per parameter: higher wins at the first place two differ."""
    return tuple(0 if part.startswith("{") else 1 for part in template.split("/") if part)


@dataclass(frozen=True, slots=True)
class _Entry:
    route: Route
    rank: tuple[int, ...]
    methods: frozenset[str]


def _bucket(template: str) -> _Bucket:
    """Where a template's paths fall; every parameter matches within one segment."""
    if ":path}" in template:
        raise ValueError(f"{template}: a parameter spanning segments cannot be bucketed")
    first = template.split("/")[1] if template.count("/") else ""
    return template.count("/"), None if "{" in first else first


class RouteTable(BaseRoute):
    """Routes matched template first, method second (see the module docstring)."""

    def __init__(self, routes: Sequence[Route]) -> None:
        # Most literal templates first; the sort is stable, so equal ranks keep their order.
        ordered = sorted(routes, key=lambda r: literal_rank(r.path), reverse=True)
        self._buckets: dict[_Bucket, list[_Entry]] = {}
        for route in ordered:
            entry = _Entry(route, literal_rank(route.path), frozenset(route.methods or ()))
            self._buckets.setdefault(_bucket(route.path), []).append(entry)

    def _candidates(self, path: str) -> list[_Entry]:
        """The entries whose template may fit ``path``, most literal first."""
        slashes = path.count("/")
        first = path.split("/", 2)[1] if slashes else ""
        literal = self._buckets.get((slashes, first), [])
        parameter = self._buckets.get((slashes, None), [])
        if not parameter:
            return literal
        return sorted([*literal, *parameter], key=lambda e: e.rank, reverse=True)

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] != "http":
            return Match.NONE, {}
        path = get_route_path(scope)
        fits = [e for e in self._candidates(path) if e.route.path_regex.match(path)]
        if not fits:
            return Match.NONE, {}
        best = [e for e in fits if e.rank == fits[0].rank]
        method = scope["method"]
        serving = next((e.route for e in best if method in e.methods), None)
        if serving is None:
            return Match.FULL, {_ALLOW_KEY: frozenset().union(*(e.methods for e in best))}
        _, child_scope = serving.matches(scope)  # FULL: the path fits, the method is declared
        return Match.FULL, {**child_scope, _ROUTE_KEY: serving}

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        serving: Route | None = scope.get(_ROUTE_KEY)
        if serving is None:
            allow = ", ".join(sorted(scope[_ALLOW_KEY]))
            raise HTTPException(405, headers={"Allow": allow})
        await serving.handle(scope, receive, send)


def method_routes(routes: Sequence[BaseRoute]) -> list[BaseRoute]:
    """``routes`` with every :class:`Route` in one :class:`RouteTable`, the others after it."""
    plain = [r for r in routes if isinstance(r, Route)]
    return [RouteTable(plain), *(r for r in routes if not isinstance(r, Route))]
