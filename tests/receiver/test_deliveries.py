"""What ``conformance receiver`` sends: every event satisfies the kit's own schemas, a signed
delivery verifies as §5 says a platform verifies it, every forgery does not, and the
receiver check's tests cover exactly the receiver's requirements."""

from __future__ import annotations

import ast
import json
from datetime import UTC, datetime

import pytest

from conformance.contract.requirements import RECEIVER_AREA, receiver_catalogue
from conformance.contract.schemas import default_registry
from conformance.ground.datafiles import RECEIVER_SUITE_DIR
from conformance.ground.public_keys import load_public_key
from conformance.webhooks.delivering.deliveries import FORGERIES, SIGNATURE_HEADER, signed
from conformance.webhooks.delivering.event_bodies import (
    EVENT_TYPES,
    event_of_type,
    follow_up,
    make_test_event,
)
from conformance.webhooks.delivering.signing_key import SigningKey
from conformance.webhooks.sink.signatures import verify_signature

KEY = SigningKey.generate()
PUBLIC = load_public_key(KEY.public_pem())


@pytest.mark.parametrize("name", [t.name for t in EVENT_TYPES])
def test_each_event_satisfies_the_kits_schemas(name):
    registry = default_registry()
    event = event_of_type(name)
    assert registry.violations(event.schema, event.envelope) == []
    if event.data_schema is not None:
        assert registry.violations(event.data_schema, event.envelope["data"]) == []
    assert registry.violations("webhooks/envelope.json", event.envelope) == []
    assert json.loads(event.body) == event.envelope


def test_the_test_event_and_a_follow_up_satisfy_their_schemas():
    registry = default_registry()
    assert registry.violations("webhooks/test-event.json", make_test_event().envelope) == []
    first = event_of_type("OUTGOING_PAYMENT.PROCESSING")
    later = follow_up(first, "OUTGOING_PAYMENT.COMPLETED", datetime.now(UTC), status="COMPLETED")
    assert later.envelope["data"]["id"] == first.envelope["data"]["id"]
    assert later.envelope["id"] != first.envelope["id"]
    assert registry.violations(later.schema, later.envelope) == []


def test_a_signed_delivery_verifies_over_its_exact_body():
    delivery = signed(event_of_type("CUSTOMER.KYB_APPROVED"), KEY)
    check = verify_signature(PUBLIC, delivery.body, delivery.headers[SIGNATURE_HEADER])
    assert check.valid, check.reason
    assert "DER" in check.reason


@pytest.mark.parametrize("forgery", FORGERIES, ids=[f.name for f in FORGERIES])
def test_no_forgery_verifies_over_the_bytes_sent(forgery):
    event = event_of_type("OUTGOING_PAYMENT.COMPLETED")
    delivery = forgery.deliver(event, KEY)
    assert not verify_signature(PUBLIC, delivery.body, delivery.headers.get(SIGNATURE_HEADER))
    assert delivery.how == forgery.how
    assert json.loads(delivery.body)["type"].startswith("OUTGOING_PAYMENT.")


def _receiver_tests() -> dict[str, list[str]]:
    """test name -> the requirement ids it declares, read from the receiver suite's files."""
    found: dict[str, list[str]] = {}
    for path in sorted(RECEIVER_SUITE_DIR.glob("test_*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                found[f"{path.name}::{node.name}"] = [
                    arg.value
                    for decorator in node.decorator_list
                    if isinstance(decorator, ast.Call)
                    and ast.unparse(decorator.func) == "pytest.mark.requirement"
                    for arg in decorator.args
                    if isinstance(arg, ast.Constant)
                ]
    return found


def test_the_receiver_checks_tests_cover_exactly_the_receivers_requirements():
    tests = _receiver_tests()
    assert tests and all(tests.values()), tests
    named = {rid for ids in tests.values() for rid in ids}
    catalogue = receiver_catalogue()
    assert named == set(catalogue.ids())
    assert {r.area for r in catalogue} == {RECEIVER_AREA}
    assert {r.part for r in catalogue} == {"webhooks"}
    assert {r.testability for r in catalogue} == {"testable"}
