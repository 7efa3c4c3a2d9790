"""What a verdict covers: the scope in every headline (summary.md, the console, Allure's
name, the Action), the interface coverage map built from exchanges and deliveries and added
up across workers, and a certificate's coverage line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.contract.interface_catalogue import (
    EVENT_TYPES,
    OPERATIONS,
    TRANSITIONS,
    enum_values,
    match_operation,
)
from conformance.contract.requirements import PARTS
from conformance.exchange.evidence import Exchange
from conformance.reporting import allure_report
from conformance.reporting.action_coverage import coverage_outputs
from conformance.reporting.allure_overview import NOT_RUN_STATUS, write_overview
from conformance.reporting.certificate import coverage_text
from conformance.reporting.interface_coverage import (
    COVERAGE_PROPERTY,
    InterfaceCoverage,
    Recorder,
    markdown_lines,
)
from conformance.reporting.scope import console_line, scope, scope_text
from conformance.reporting.summary_markdown import render_markdown

BASE = "http://127.0.0.1:9/2025-10-13"


def _requirements(decided: int, total: int) -> list[dict[str, str]]:
    return [
        {"id": f"R-{n}", "part": "auth", "status": "passed" if n < decided else "untested"}
        for n in range(total)
    ]


def _summary(verdict: str, parts: list[str], narrowed: list[dict[str, str]], decided: int,
             total: int) -> dict[str, Any]:  # fmt: skip
    return {
        "verdict": verdict,
        "incomplete_reason": None,
        "parts_run": parts,
        "plan": {"complete": not narrowed, "parts": parts, "narrowed": narrowed},
        "requirements": _requirements(decided, total),
        "interface_version": "2025-10-13",
        "suite_version": "0.1.0",
        "target": {"base_url": BASE, "environment": "sandbox"},
        "started_at": "2026-01-01T00:00:00Z",
        "duration_s": 1.0,
        "totals": {"passed": 3, "failed": 0, "skipped": 0, "errors": 0, "waived": 0},
        "parts": {},
        "failures": [],
        "advisories": [],
    }


NARROWED = [{"by": "--parts", "detail": "auth,webhooks (not selected: ...)"}]


def test_a_narrowed_run_names_its_parts_and_the_requirements_it_decided() -> None:
    summary = _summary("passed", ["auth", "webhooks"], NARROWED, 45, 340)
    summary["scope"] = scope(summary)
    assert summary["scope"]["narrowed"] and summary["scope"]["requirements"] == {
        "decided": 45, "total": 340, "undecided": 295,
    }  # fmt: skip
    first = render_markdown(summary).splitlines()[0]
    assert first == "# Conformance run: PASSED for auth, webhooks (45 of 340 requirements decided)"
    assert console_line(summary) == (
        "conformance: PASSED for auth, webhooks (45 of 340 requirements decided)"
    )


def test_a_keyword_is_named_and_a_whole_decided_run_reads_just_its_verdict() -> None:
    keyword = [{"by": "-k", "detail": "webhook"}]
    assert scope_text(_summary("failed", list(PARTS), keyword, 10, 340)) == (
        f" for {', '.join(PARTS)}, narrowed by -k webhook (10 of 340 requirements decided)"
    )
    assert scope_text(_summary("passed", list(PARTS), [], 340, 340)) == ""
    assert scope_text(_summary("passed", list(PARTS), [], 318, 340)) == (
        " (318 of 340 requirements decided)"
    )
    assert scope_text(_summary("incomplete", ["auth"], NARROWED, 1, 340)) == ""


def test_allure_s_name_and_overview_carry_the_scope(tmp_path: Path) -> None:
    summary = _summary("passed", ["auth", "webhooks"], NARROWED, 45, 340)
    write_overview(tmp_path, summary)
    assert allure_report.report_name(tmp_path) == (
        f"GPSI conformance: PASSED for auth, webhooks (45 of 340 requirements decided) ({BASE})"
    )


def test_an_incomplete_run_shows_in_allure_the_tests_that_did_not_run(tmp_path: Path) -> None:
    summary = {**_summary("incomplete", ["auth"], NARROWED, 1, 2), "tests": [{"nodeid": "a::x"}]}
    write_overview(tmp_path, summary, ["a::x", "a::y", "a::z"])
    results = [json.loads(p.read_text()) for p in tmp_path.glob("*-result.json")]
    assert sorted((r["fullName"], r["status"]) for r in results) == [
        ("a::y", NOT_RUN_STATUS), ("a::z", NOT_RUN_STATUS),
    ]  # fmt: skip
    write_overview(tmp_path, {**summary, "verdict": "passed"}, ["a::x", "a::y", "a::z"])
    assert not list(tmp_path.glob("*-result.json"))  # a later verdict takes them back


def _exchange(method: str, path: str, status: int | None, sent: Any = None,
              answer: Any = None) -> Exchange:  # fmt: skip
    return Exchange(
        method=method,
        url=BASE + path,
        request_headers={},
        request_body=json.dumps(sent, indent=2) if sent is not None else "",
        curl="curl",
        status=status,
        response_body=json.dumps(answer, indent=2) if answer is not None else "",
    )


def test_the_catalogue_names_every_operation_event_transition_and_listed_value() -> None:
    assert len(OPERATIONS) >= 40 and len({op.name for op in OPERATIONS}) == len(OPERATIONS)
    assert "CUSTOMER.KYB_REJECTED" in EVENT_TYPES and "TEST" in EVENT_TYPES
    assert any(t.name == "transaction.status: PROCESSING -> COMPLETED" for t in TRANSITIONS)
    assert enum_values()["customer.kycStatus"] == (
        "UNVERIFIED", "PENDING", "APPROVED", "REJECTED", "HOLD",
    )  # fmt: skip
    literal = match_operation("GET", BASE + "/customers/agreements?x=1")
    assert literal is not None and literal.name == "GET /customers/agreements"
    assert match_operation("DELETE", BASE + "/customers/Customer:1") is None


class _Report:
    def __init__(self, contribution: dict[str, Any]) -> None:
        self.user_properties = [(COVERAGE_PROPERTY, json.dumps(contribution))]


class _Delivery:
    def __init__(self, kind: str, data: Any = None) -> None:
        self.event_type, self.json = kind, {"type": kind, "data": data}


def test_the_map_adds_up_what_each_worker_sent_and_saw() -> None:
    first, second = Recorder(), Recorder()
    quote = {"id": "Quote:1", "status": "PENDING", "source": {"sourceType": "ACCOUNT"}}
    one = first.contribution([
        _exchange("POST", "/quotes", 201, {"lockedCurrencySide": "SENDING"}, quote),
        _exchange("POST", "/quotes/Quote:1/execute", 200, None, {**quote, "status": "PROCESSING"}),
        _exchange("GET", "/stablecoins/Stable:9", 404),
    ])  # fmt: skip
    cut = json.dumps({"id": "Customer:1", "kycStatus": "PENDING", "notes": "x" * 50}, indent=2)
    two = second.contribution([
        _exchange("POST", "/quotes", None, {"description": "d"}),
        Exchange("GET", BASE + "/customers/Customer:1", {}, "", "curl", 200,
                 response_body=cut[:60]),
    ])  # fmt: skip
    coverage = InterfaceCoverage(
        lambda: [_Delivery("OUTGOING_PAYMENT.COMPLETED", {"id": "T:1", "status": "COMPLETED"}),
                 _Delivery("NOT.NAMED")]
    )  # fmt: skip
    for contribution in (one, two):
        coverage.add_report(_Report(contribution))  # type: ignore[arg-type]
    view = coverage.view()
    ops = {op["operation"]: op for op in view["operations"]}
    assert len(ops) == len(OPERATIONS)
    assert ops["POST /quotes"]["requests"] == 2
    assert ops["POST /quotes"]["statuses"] == {"201": 1, "no answer": 1}
    assert ops["POST /quotes"]["request_fields"] == ["description", "lockedCurrencySide"]
    assert "source.sourceType" in ops["POST /quotes"]["response_fields"]
    assert ops["GET /customers/{customerId}"]["response_fields"] == ["id", "kycStatus", "notes"]
    assert view["requests_outside_the_operations"] == {"GET /stablecoins/{id}": 1}
    moves = {t["transition"]: t for t in view["transitions"]}
    assert moves["quote.status: PENDING -> PROCESSING"]["observed"] == 1
    assert moves["transaction.status: PROCESSING -> COMPLETED"]["announced"] == 1
    events = {e["type"]: e["received"] for e in view["events"]}
    assert events["OUTGOING_PAYMENT.COMPLETED"] == 1 and events["TEST"] == 0
    assert view["events_not_named"] == {"NOT.NAMED": 1}
    values = {row["field"]: row["values"] for row in view["enums"]}
    assert values["quote.source.sourceType"] == {"ACCOUNT": 2, "REALTIME_FUNDING": 0}
    assert values["transaction.status"]["COMPLETED"] == 1
    table = "\n".join(markdown_lines({"interface_coverage": view}))
    assert "| `POST /quotes` | 2 | 201: 1, no answer: 1 | 2 |" in table


def test_a_move_across_two_tests_of_one_worker_is_seen() -> None:
    recorder = Recorder()
    account = {"id": "InternalAccount:1", "status": "PENDING"}
    listed = _exchange("GET", "/customers/internal-accounts", 200, None, {"data": [account]})
    recorder.contribution([listed])
    moved = {**account, "status": "ACTIVE"}
    later = recorder.contribution([_exchange("PATCH", f"/internal-accounts/{account['id']}",
                                             200, {}, moved)])  # fmt: skip
    assert later["moves"] == {"internal-account.status: PENDING -> ACTIVE": 1}


def test_a_certificate_states_its_coverage_in_one_line() -> None:
    cover = {
        "requirements": 340, "passed": 229, "failed": 0, "waived": 0, "untested": 3,
        "untested_list": [
            {"id": "A", "cause": "no second-platform credentials"},
            {"id": "B", "cause": "no second-platform credentials"},
            {"id": "C", "cause": "not testable"},
        ],
    }  # fmt: skip
    assert coverage_text("passed", cover) == (
        "passed: 229 of 340 requirements; 3 untested (2: no second-platform credentials, "
        "1: not testable)"
    )


@pytest.mark.parametrize("written", [True, False])
def test_the_action_s_outputs_carry_the_scope_and_the_coverage(tmp_path: Path,
                                                               written: bool) -> None:  # fmt: skip
    summary = _summary("passed", ["auth", "webhooks"], NARROWED, 45, 340)
    summary["interface_coverage"] = InterfaceCoverage().view()
    if written:
        (tmp_path / "certification.zip").write_bytes(b"zip")
    lines = dict(line.split("=", 1) for line in coverage_outputs("passed", summary, tmp_path, 0.0))
    assert lines["headline"] == "PASSED for auth, webhooks (45 of 340 requirements decided)"
    assert lines["requirements-decided"] == "45" and lines["requirements-total"] == "340"
    assert lines["interface-coverage"].startswith(f"operations 0 of {len(OPERATIONS)} requested")
    assert bool(lines["certificate"]) == written
    assert lines["certificate-coverage"].startswith("passed: 45 of 340" if written else "")
    missing = dict(line.split("=", 1) for line in coverage_outputs("failed", None, tmp_path, 0))
    assert missing["headline"] == "FAILED" and missing["scope"] == ""


def test_every_endpoint_the_suite_maps_is_an_operation_of_the_catalogue() -> None:
    from conformance.contract.endpoint_schemas import ENDPOINTS

    names = {op.name for op in OPERATIONS}
    assert {f"{e.method} {e.template}" for e in ENDPOINTS} <= names


def test_a_target_cannot_flood_the_map() -> None:
    many = {f"field{n}": n for n in range(1000)}
    contribution = Recorder().contribution([_exchange("GET", "/config", 200, None, many)])
    coverage = InterfaceCoverage(lambda: [_Delivery(f"OWN.{n}") for n in range(500)])
    coverage.add(contribution)
    coverage.add(contribution)
    view = coverage.view()
    config = next(op for op in view["operations"] if op["operation"] == "GET /config")
    assert config["requests"] == 2 and len(config["response_fields"]) <= 300
    assert len(view["events_not_named"]) <= 50


def test_a_body_nested_past_the_decoder_s_bound_is_read_as_text() -> None:
    deep = Exchange("GET", BASE + "/config", {}, "", "curl", 200, response_body="[" * 100_000)
    contribution = Recorder().contribution([deep])
    assert contribution["ops"]["GET /config"]["res"] == []
