"""Every route of the API answers a method it does not declare with 405 METHOD_NOT_ALLOWED
and an ``Allow`` header naming the methods it does declare (a model server, even where the
interface is silent), under the versioned base path, with parameters in the path too."""

from __future__ import annotations

import httpx
import pytest
from starlette.routing import Match, Route

from reference.kernel.method_routing import RouteTable, literal_rank
from reference.server.app import ROUTERS

from .reference_helpers import RunningSandbox

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
FILLER = "Dummy:00000000-0000-0000-0000-000000000000"


def _declared() -> dict[str, set[str]]:
    """Path template -> every method declared on it, across modules."""
    declared: dict[str, set[str]] = {}
    for routes in ROUTERS:
        for route in routes:
            if isinstance(route, Route):
                declared.setdefault(route.path, set()).update(route.methods or ())
    return declared


DECLARED = _declared()
UNDECLARED = sorted(
    (template, method)
    for template, methods in DECLARED.items()
    for method in METHODS
    if method not in methods
)


def _concrete(template: str) -> str:
    return "/".join(FILLER if p.startswith("{") else p for p in template.split("/"))


def _allow(response: httpx.Response) -> set[str]:
    return {m.strip() for m in response.headers.get("allow", "").split(",") if m.strip()}


def test_the_enumeration_covers_parameters_and_several_modules():
    assert len(UNDECLARED) > 50
    assert any("{" in template for template, _ in UNDECLARED)


@pytest.mark.parametrize(("template", "method"), UNDECLARED)
def test_an_undeclared_method_answers_405_with_allow(sandbox: RunningSandbox, template, method):
    with sandbox.client() as client:
        response = client.request(method, _concrete(template), json={})
    assert response.status_code == 405, (template, method, response.status_code, response.text)
    assert response.json()["code"] == "METHOD_NOT_ALLOWED"
    assert _allow(response) - {"HEAD"} == DECLARED[template] - {"HEAD"}


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("PATCH", "/customers/agreements", {"GET"}),  # not PATCH /customers/{customerId}
        ("DELETE", "/customers/external-accounts", {"GET", "POST"}),
        ("POST", "/config", {"GET", "PATCH"}),
    ],
)
def test_a_literal_path_is_never_served_by_a_parameter_template(
    sandbox: RunningSandbox, method, path, allow
):
    with sandbox.client() as client:
        response = client.request(method, path)
    assert response.status_code == 405, response.text
    assert _allow(response) - {"HEAD"} == allow


def test_a_declared_method_is_still_served(sandbox: RunningSandbox):
    with sandbox.client() as client:
        assert client.get("/customers/agreements").status_code == 200
        assert client.get(f"/customers/{FILLER}").status_code == 404  # the customer route


def test_literal_segments_rank_above_parameters():
    assert literal_rank("/customers/external-accounts") > literal_rank("/customers/{customerId}")
    assert literal_rank("/a/b/{x}") > literal_rank("/a/{x}/c")


TABLE = RouteTable([route for routes in ROUTERS for route in routes if isinstance(route, Route)])


def _matches(method: str, path: str) -> tuple[Match, dict]:
    return TABLE.matches({"type": "http", "method": method, "path": path, "root_path": ""})


@pytest.mark.parametrize(("template", "methods"), sorted(DECLARED.items()))
def test_the_table_serves_each_declared_method_with_a_route_of_its_template(template, methods):
    for method in methods:
        match, child = _matches(method, _concrete(template))
        declaring = [
            route.endpoint
            for routes in ROUTERS
            for route in routes
            if isinstance(route, Route) and route.path == template and method in route.methods
        ]
        assert match is Match.FULL and child["endpoint"] in declaring, (template, method)


@pytest.mark.parametrize("template", sorted(DECLARED))
def test_the_table_fits_no_template_to_a_slash_ended_or_prefixed_path(template):
    for path in (_concrete(template) + "/", "/x" + _concrete(template)):
        assert _matches("GET", path)[0] is Match.NONE, path
