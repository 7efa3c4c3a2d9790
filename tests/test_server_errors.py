"""A 5xx answer to a §4 operation (conformance/exchange/server_errors.py) fails once, charged to
the operation's own requirement (conformance/contract/operation_owners.py), before the body
is read; a request sent with validate=False, or to a path §4 does not show, is not judged."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conformance.contract.failures import ConformanceFailure
from conformance.contract.interface_catalogue import OPERATIONS
from conformance.contract.operation_owners import CHARGED, operation_owners
from conformance.contract.requirements import default_catalogue
from conformance.contract.schemas import default_registry
from conformance.exchange.answer_checks import registered
from conformance.exchange.client import ExchangeLog, TargetClient
from conformance.exchange.evidence import Redactor
from conformance.reporting.causes import charged_failure


class _Answers500(BaseHTTPRequestHandler):
    """Answers every request with the status and body the path's last segment names."""

    def log_message(self, *args: object) -> None:
        pass

    def _reply(self) -> None:
        path = self.path.split("?")[0]
        status = 503 if path.endswith("/execute") else 500
        code = "QUOTE_RATE_UNAVAILABLE" if "rate-refused" in self.path else "INTERNAL"
        body = b"<html>down</html>" if "html" in self.path else json.dumps(
            {"status": status, "code": code, "message": "boom"}
        ).encode()  # fmt: skip
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PATCH = do_DELETE = _reply


@pytest.fixture(scope="module")
def client() -> Iterator[TargetClient]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Answers500)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    client = TargetClient(
        base_url=f"http://127.0.0.1:{server.server_address[1]}/2025-10-13",
        credentials=None,
        timeout=5,
        registry=default_registry(),
        log=ExchangeLog(),
        redactor=Redactor(()),
    )
    yield client
    client.close()
    server.shutdown()


def test_every_operation_has_an_owner_in_the_catalogue():
    ids = {requirement.id for requirement in default_catalogue()}
    assert set(CHARGED) == {operation.name for operation in OPERATIONS}
    for operation in OPERATIONS:
        found = operation_owners(operation.method, operation.template.replace("{", "x"))
        assert found is not None and found[0] == operation, operation
        assert found[1][0] == CHARGED[operation.name]
        assert set(found[1]) <= ids, (operation.name, set(found[1]) - ids)


def test_owners_are_the_requirements_that_name_the_operation():
    _, owners = operation_owners("POST", "/customers")
    assert owners[0] == "CUSTOMER-CREATE"
    assert "CUSTOMER-CREATE-BUSINESS-INFO-REQUIRED" in owners  # "`POST /customers` for a ..."
    _, owners = operation_owners("GET", "/2025-10-13/verifications?customerId=Customer:1")
    assert owners == ("VERIFICATION-GET-BY-CUSTOMER",)  # "`GET /verifications?customerId=<id>`"


def test_the_5xx_check_runs_first():
    assert registered()[0].name == "server-error"


def test_a_500_fails_charged_to_the_operation_once(client):
    with pytest.raises(ConformanceFailure) as raised:
        client.post("/customers", json={"customerType": "INDIVIDUAL"})
    failure = raised.value
    assert str(failure).startswith("§4 Customers and verification: POST /customers answered 500")
    assert failure.charged_to == "CUSTOMER-CREATE" and failure.check == "server-error"
    assert "CUSTOMER-CREATE-TYPE-REQUIRED" in failure.owners
    cause = charged_failure(failure)
    assert cause is not None and cause.observed == "POST /customers answered 500"


def test_the_cause_names_the_operation_not_the_request(client):
    """Two customers' 500s are one cause: the template, not the id, is in it."""
    observed = set()
    for customer in ("Customer:1", "Customer:2"):
        with pytest.raises(ConformanceFailure) as raised:
            client.get(f"/customers/{customer}")
        assert raised.value.charged_to == "CUSTOMER-GET"
        observed.add(raised.value.cause)
    assert observed == {"GET /customers/{customerId} answered 500"}


def test_a_5xx_whose_body_is_not_json_is_charged_before_decoding(client):
    with pytest.raises(ConformanceFailure) as raised:
        client.get("/config", params={"html": "1"})
    assert raised.value.check == "server-error" and raised.value.charged_to == "CONFIG-GET-RESOURCE"


def test_a_503_is_a_5xx_too(client):
    with pytest.raises(ConformanceFailure, match=r"POST /quotes/\{quoteId\}/execute answered 503"):
        client.post("/quotes/Quote:1/execute")


def test_validate_false_and_unnamed_requests_are_not_judged(client):
    assert client.get("/config", validate=False).status == 500
    assert client.get("/stablecoins").status == 500  # §4 shows no row for it
    assert client.delete("/config").status == 500  # nor for this method


def test_a_code_section_7_gives_no_status_may_come_with_a_5xx(client):
    """§7 names QUOTE_RATE_UNAVAILABLE, not its status: a 5xx carrying it is one reading."""
    assert client.post("/quotes/Quote:rate-refused/execute").status == 503
