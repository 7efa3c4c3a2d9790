"""§5 Authentication on the endpoints the interface names without showing their bodies
(stablecoins, exchange rates, discovery, API tokens): HTTP Basic is the default for
platform endpoints, so a request without credentials answers 401 ``UNAUTHORIZED`` with a
reason, and the platform's credentials are accepted. Nothing else about them is judged
(their bodies are not shown); the adapter names the requests."""

from __future__ import annotations

import pytest

from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.exchange.assertions import AUTH_CLAUSE, assert_unauthorized
from conformance.ground import hookspecs

pytestmark = [needs_adapter_hook(hookspecs.pytest_conformance_other_endpoints)]

HOOK = hookspecs.pytest_conformance_other_endpoints


def _requests(adapter):
    named = adapter.call(HOOK)
    valid = isinstance(named, list) and all(
        isinstance(r, dict) and isinstance(r.get("method"), str) and isinstance(r.get("path"), str)
        for r in named
    )
    check(
        valid and bool(named),
        AUTH_CLAUSE,
        "the adapter names requests as a list of {method, path, json?}",
        observed=named,
        hint=f"the adapter hook {HOOK.__name__} answers it",
    )
    return named


@pytest.mark.requirement("AUTH-BASIC-REQUIRED", "AUTH-401-REASON")
def test_named_endpoints_without_shown_bodies_require_credentials(adapter, client):
    for named in _requests(adapter):
        kwargs = {"json": named["json"]} if "json" in named else {}
        method, path = named["method"].upper(), named["path"]
        anonymous = client.request(method, path, auth=None, validate=False, **kwargs)
        assert_unauthorized(
            anonymous,
            f"{method} {path} without credentials is refused",
            requirement="AUTH-BASIC-REQUIRED",
        )
        served = client.request(method, path, **kwargs)  # JSON bodies, error envelope (§7)
        check(
            served.status != 401,
            AUTH_CLAUSE,
            f"{method} {path} accepts the platform's Basic credentials",
            observed=(served.status, served.content[:200]),
            exchange=served.exchange,
        )
