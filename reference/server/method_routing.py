"""Every path of the API answers a method it does not declare with 405 and an ``Allow``
header (SANDBOX.md, error envelope: unknown method → 405 ``METHOD_NOT_ALLOWED``).

Starlette alone gets two cases wrong: a path whose template is declared in two modules
answers 405 with the ``Allow`` of whichever route comes first, and a path that also fits a
less literal template (``GET /customers/external-accounts`` against ``GET
/customers/{customerId}``) is served by that template instead of being refused. So the path
is matched to its template first, literal segments before parameters, and only then the
method: :func:`method_routes` puts a guard in front of the routes that answers 405 when the
best template lacks the method, and orders the routes so the best template serves the rest.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from starlette._utils import get_route_path  # the path inside the mount, as Route sees it
from starlette.exceptions import HTTPException
from starlette.routing import BaseRoute, Match, Route
from starlette.types import Receive, Scope, Send

_ALLOW_KEY = "reference.allow"


def literal_rank(template: str) -> tuple[int, ...]:
    """1 per fixed segment, 0 per parameter: higher wins at the first place two differ."""
    return tuple(0 if part.startswith("{") else 1 for part in template.split("/") if part)


@dataclass(frozen=True, slots=True)
class _Template:
    regex: re.Pattern[str]
    rank: tuple[int, ...]
    methods: frozenset[str]


def _templates(routes: Sequence[Route]) -> list[_Template]:
    """One entry per path template, with the methods of every route declaring it."""
    grouped: dict[str, tuple[re.Pattern[str], set[str]]] = {}
    for route in routes:
        _, methods = grouped.setdefault(route.path, (route.path_regex, set()))
        methods.update(route.methods or ())
    return [
        _Template(regex, literal_rank(path), frozenset(methods))
        for path, (regex, methods) in grouped.items()
    ]


class MethodGuard(BaseRoute):
    """Matches (and answers 405) only when the best template for the path lacks the method."""

    def __init__(self, routes: Sequence[Route]) -> None:
        self._templates = _templates(routes)

    def allowed(self, path: str) -> frozenset[str] | None:
        """The methods of the best template for ``path``; None when no template fits."""
        fits = [t for t in self._templates if t.regex.match(path)]
        if not fits:
            return None
        best = max(t.rank for t in fits)
        return frozenset().union(*(t.methods for t in fits if t.rank == best))

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] != "http":
            return Match.NONE, {}
        allowed = self.allowed(get_route_path(scope))
        if allowed is None or scope["method"] in allowed:
            return Match.NONE, {}
        return Match.FULL, {_ALLOW_KEY: allowed}

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        allow = ", ".join(sorted(scope[_ALLOW_KEY]))
        raise HTTPException(405, headers={"Allow": allow})


def method_routes(routes: Sequence[BaseRoute]) -> list[BaseRoute]:
    """``routes`` behind a :class:`MethodGuard`, most literal templates first (a stable
    sort, so routes of equal rank keep their order)."""
    plain = [r for r in routes if isinstance(r, Route)]
    ordered = sorted(
        routes,
        key=lambda r: literal_rank(r.path) if isinstance(r, Route) else (),
        reverse=True,
    )
    return [MethodGuard(plain), *ordered]
