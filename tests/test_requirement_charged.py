"""A failing assertion that names the requirement it checks (``ConformanceFailure.requirement``)
fails only that one of its test's requirements; the test's others count as blocked. One
naming no requirement, or one the test does not carry, fails them all, as before."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from conformance.contract.failures import ConformanceFailure, check, fail
from conformance.contract.markers import PART_PROPERTY, REQUIREMENTS_PROPERTY
from conformance.contract.requirements import default_catalogue
from conformance.payments.conservation import (
    DEBIT_REQUIREMENT,
    FUNDING_REQUIREMENT,
    REFUND_REQUIREMENT,
    Ledger,
    Payment,
)
from conformance.payments.funding import Balances
from conformance.reporting.causes import CAUSE_PROPERTY, Cause, charge
from conformance.reporting.summaries import SummaryReporter

OWN = ("SANDBOX-KYC-002-REJECTED", "KYC-REJECTED", "WEBHOOK-CUSTOMER-EVENT-FAMILY")
NODE = "conformance/suites/transitions/test_x.py::test_x"
CLAUSE = "§4 Sandbox behaviours"


def _failed(failure: BaseException) -> pytest.TestReport:
    """The call report of a test carrying ``OWN`` that failed with ``failure``, charged."""
    report = pytest.TestReport(
        NODE,
        ("conformance/suites/transitions/test_x.py", 9, "test_x"),
        {},
        "failed",
        str(failure),
        "call",
        user_properties=[(PART_PROPERTY, "transitions"), (REQUIREMENTS_PROPERTY, ",".join(OWN))],
    )
    charge(report, list(OWN), failure)
    return report


def _statuses(report: pytest.TestReport, tmp_path: Path) -> dict[str, Any]:
    reporter = SummaryReporter(tmp_path, default_catalogue(), {})
    reporter.pytest_runtest_logreport(report)
    summary = reporter.build()
    return {r["id"]: r["status"] for r in summary["requirements"] if r["id"] in OWN} | {
        "verdict": summary["verdict"],
        "blocked": summary["totals"].get("blocked", 0),
        "causes": summary["causes"],
    }


def _raised(**kwargs: Any) -> ConformanceFailure:
    with pytest.raises(ConformanceFailure) as raised:
        fail(CLAUSE, "an individual ending in 002 is REJECTED", observed="APPROVED", **kwargs)
    return raised.value


def test_a_failure_naming_one_of_the_test_s_requirements_fails_only_that_one(tmp_path):
    report = _failed(_raised(requirement="SANDBOX-KYC-002-REJECTED"))
    assert report.outcome == "failed"  # the test itself fails; it is not blocked
    cause = Cause.from_property(dict(report.user_properties)[CAUSE_PROPERTY])
    assert (cause.clause, cause.requirement) == (CLAUSE, "SANDBOX-KYC-002-REJECTED")
    seen = _statuses(report, tmp_path)
    assert seen["SANDBOX-KYC-002-REJECTED"] == "failed"
    # the other requirements were not judged: counted apart, not failed (no test passed them)
    assert seen["KYC-REJECTED"] == seen["WEBHOOK-CUSTOMER-EVENT-FAMILY"] == "skipped"
    assert seen["verdict"] == "failed" and seen["blocked"] == 0
    assert [c["requirement"] for c in seen["causes"]] == ["SANDBOX-KYC-002-REJECTED"]
    assert seen["causes"][0]["failed"] == [NODE]


@pytest.mark.parametrize("named", [None, "SANDBOX-KYB-002-REJECTED"], ids=["none", "not-its-own"])
def test_a_failure_naming_no_requirement_of_the_test_fails_them_all(tmp_path, named):
    report = _failed(_raised(requirement=named))
    assert report.outcome == "failed" and CAUSE_PROPERTY not in dict(report.user_properties)
    seen = _statuses(report, tmp_path)
    assert [seen[rid] for rid in OWN] == ["failed"] * len(OWN)
    assert seen["verdict"] == "failed"


def test_check_passes_the_requirement_on_and_the_message_is_unchanged():
    with pytest.raises(ConformanceFailure) as named:
        check(False, CLAUSE, "a statement", observed=1, requirement="KYC-REJECTED")
    with pytest.raises(ConformanceFailure) as plain:
        check(False, CLAUSE, "a statement", observed=1)
    assert named.value.requirement == "KYC-REJECTED" and plain.value.requirement is None
    assert str(named.value) == str(plain.value)


def test_a_charged_answer_check_still_wins_over_a_named_requirement():
    failure = _raised(requirement="KYC-REJECTED")
    failure.charged_to = "COMMON-TIMESTAMP-UTC"  # an answer check found it on the way
    report = _failed(failure)
    assert report.outcome == "skipped"  # blocked by the answer's own requirement


def _strings(node: ast.expr) -> list[ast.Constant]:
    """The string constants ``node`` may evaluate to (a conditional's branches, a table's
    values), not those passed on to calls."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node]
    if isinstance(node, ast.IfExp):
        return _strings(node.body) + _strings(node.orelse)
    if isinstance(node, ast.Dict):
        return [c for value in node.values for c in _strings(value)]
    return []


def _named_literals() -> list[tuple[str, int, str]]:
    """Every requirement an assertion names in conformance/: the strings of ``requirement=``
    (and ``unresolved=``) keywords and of names holding ``REQUIREMENT``."""
    root = Path(__file__).resolve().parents[1] / "conformance"
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            value: ast.expr | None = None
            if isinstance(node, ast.keyword) and node.arg in ("requirement", "unresolved"):
                value = node.value
            elif isinstance(node, ast.Assign):
                names = [getattr(t, "id", "") for t in node.targets]
                if any("REQUIREMENT" in n and "PROPERTY" not in n for n in names):
                    value = node.value
            for leaf in _strings(value) if value is not None else []:
                found.append((str(path.relative_to(root)), leaf.lineno, str(leaf.value)))
    return found


def test_every_requirement_an_assertion_names_is_in_the_catalogue():
    known = {r.id for r in default_catalogue()}
    literals = _named_literals()
    assert len(literals) > 20
    unknown = [(path, line, rid) for path, line, rid in literals if rid not in known]
    assert not unknown, unknown


# -- money conservation: the step since the balances last added up names the requirement --


def _pay(ledger: Ledger, history: dict[str, Any], n: int, status: str, refund: str = "") -> None:
    """A payment ``n`` of the ledger, as the transaction history shows it."""
    ledger.payments.append(Payment(f"Quote:{n}", f"Transaction:{n}", 1_000, "ordinary"))
    history[f"Transaction:{n}"] = {"status": status, "refund": {"status": refund}}


def _verified(ledger: Ledger, history: dict[str, Any]) -> None:
    ledger.verified = (ledger.funded, ledger.outflows(history, "status"))


def test_a_balance_off_after_one_failed_refunded_payment_is_the_refund_s():
    ledger, history = Ledger(Balances(0, 0), funded=50_000), {}
    _pay(ledger, history, 1, "PROCESSING")  # a timeout: held, and still held later
    _verified(ledger, history)
    _pay(ledger, history, 2, "FAILED", "COMPLETED")
    assert ledger.step_requirement(history, "status") == REFUND_REQUIREMENT


def test_a_balance_off_after_funding_alone_or_one_completed_payment_names_that_rule():
    ledger, history = Ledger(Balances(0, 0)), {}
    _verified(ledger, history)
    ledger.funded = 50_000
    assert ledger.step_requirement(history, "status") == FUNDING_REQUIREMENT
    _verified(ledger, history)
    _pay(ledger, history, 1, "COMPLETED")
    assert ledger.step_requirement(history, "status") == DEBIT_REQUIREMENT


def test_a_balance_off_after_more_than_one_change_names_none():
    ledger, history = Ledger(Balances(0, 0)), {}
    _pay(ledger, history, 1, "PROCESSING")
    _verified(ledger, history)
    ledger.funded = 50_000
    _pay(ledger, history, 2, "COMPLETED")
    assert ledger.step_requirement(history, "status") is None  # funded and paid
    ledger.funded = 0
    history["Transaction:1"]["status"] = "COMPLETED"  # the held one settled meanwhile
    assert ledger.step_requirement(history, "status") is None
    _verified(ledger, history)
    assert ledger.step_requirement(history, "status") is None  # nothing moved: not told
