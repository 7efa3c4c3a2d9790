"""The sandbox's client check and the kit judge request bodies by the same shapes: the
endpoints whose request schema the kit's endpoint map names are the ones the check knows,
with the same schema (the packages never import each other, so the two maps are held equal
here)."""

from __future__ import annotations

import re

from conformance.contract.endpoint_schemas import ENDPOINTS
from conformance.contract.reference_choices import REQUEST_BODIES
from reference.client_check import body_schemas


def _sample(template: str) -> str:
    return re.sub(r"\{[^}]+\}", "Any:1", template)


def test_the_check_knows_every_request_shape_the_kit_maps() -> None:
    kit = {
        (e.method, _sample(e.template)): e.request.removeprefix("requests/")
        for e in ENDPOINTS
        if e.request
    }
    check = {
        (method, _sample(template)): name for method, template, name in body_schemas.REQUEST_SCHEMAS
    }
    # and the bodies §4 does not show that the check judges as objects only (the export)
    chosen = {
        (m, _sample(t)): name.removeprefix("requests/") for (m, t), name in REQUEST_BODIES.items()
    }
    assert {key: check[key] for key in check if key not in kit}.items() <= chosen.items()
    assert {key: check[key] for key in kit} == kit
    for (method, path), name in check.items():
        assert body_schemas.schema_for(method, path) == name
        assert (body_schemas.clause_of(name) or "").startswith("§4 ")
