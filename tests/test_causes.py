"""Causes (conformance/reporting/causes.py): a defect an answer check charges to its own
requirement fails the test that is about it and blocks the others, once per cause."""

from __future__ import annotations

import json
from dataclasses import dataclass

from conformance.contract.answer_owners import SCHEMA_AREAS, owners_of
from conformance.contract.failures import ConformanceFailure
from conformance.contract.schemas import default_registry
from conformance.reporting.causes import (
    BLOCKED_PROPERTY,
    CAUSE_PROPERTY,
    Cause,
    blocked_reason,
    cause_lines,
    charge,
    charged_failure,
    settle,
    show_blocked_as_broken,
    summarize,
)

TIMESTAMPS = "COMMON-TIMESTAMP-UTC"


def _charged(when: str) -> ConformanceFailure:
    failure = ConformanceFailure("§2 PlatformConfig", f"createdAt {when} is not UTC")
    failure.charged_to = TIMESTAMPS
    failure.cause = f"GET /config answers createdAt at {when}"
    return failure


@dataclass
class _Report:
    outcome: str = "failed"
    location: tuple[str, int, str] = ("suites/test_x.py", 9, "test_x")
    longrepr: object = None

    def __post_init__(self) -> None:
        self.user_properties: list[tuple[str, str]] = []

    @property
    def failed(self) -> bool:
        return self.outcome == "failed"


@dataclass
class _Result:
    nodeid: str
    outcome: str
    message: str = ""
    requirements: tuple[str, ...] = ()
    cause: Cause | None = None


def test_a_test_about_the_charged_requirement_fails_and_others_are_blocked():
    own = _Report()
    charge(own, [TIMESTAMPS], _charged("2026-01-01T10:00:00+02:00"))
    assert own.outcome == "failed" and own.user_properties[0][0] == CAUSE_PROPERTY
    other = _Report()
    charge(other, ["AUTH-BASIC-REQUIRED"], _charged("2026-01-01T10:00:00+02:00"))
    assert other.outcome == "skipped" and other.user_properties[0][0] == BLOCKED_PROPERTY
    assert isinstance(other.longrepr, tuple) and other.longrepr[2].startswith("blocked: ")
    assert TIMESTAMPS in other.longrepr[2]


def test_an_uncharged_failure_is_the_test_s_own():
    report = _Report()
    charge(report, ["AUTH-BASIC-REQUIRED"], ConformanceFailure("§5 Authentication", "401"))
    assert report.outcome == "failed" and report.user_properties == []


def test_the_same_defect_met_at_other_instants_is_one_cause():
    first = charged_failure(_charged("2026-01-01T10:00:00+02:00"))
    later = [charged_failure(_charged(f"2026-02-0{n % 9 + 1}T11:11:11+02:00")) for n in range(30)]
    results = [
        _Result("a", "failed", cause=first),
        *(_Result(f"b{n}", "blocked", cause=cause) for n, cause in enumerate(later)),
        _Result("c", "failed", "§5 Authentication: a wrong secret answers 401; got 200", ("AUTH",)),
    ]
    causes = summarize(results)
    assert [len(c["blocked"]) for c in causes] == [30, 0] and len(causes) == 2
    assert causes[0]["failed"] == ["a"] and causes[0]["requirement"] == TIMESTAMPS
    assert causes[1]["clause"] == "§5 Authentication" and causes[1]["requirement"] == "AUTH"
    assert len(cause_lines(causes)) == 2


def test_allure_shows_a_blocked_test_as_broken_and_links_its_cause(tmp_path):
    reason = blocked_reason(Cause("§2 PlatformConfig", TIMESTAMPS, "createdAt is not UTC"))
    blocked = {"status": "skipped", "statusDetails": {"trace": repr(("t.py", 3, reason))}}
    skipped = {"status": "skipped", "statusDetails": {"message": "needs the adapter"}}
    (tmp_path / "a-result.json").write_text(json.dumps(blocked))
    (tmp_path / "b-result.json").write_text(json.dumps(skipped))
    assert show_blocked_as_broken(tmp_path) == 1
    shown = json.loads((tmp_path / "a-result.json").read_text())
    assert shown["status"] == "broken" and shown["statusDetails"]["message"] == reason
    assert shown["links"][0]["name"] == f"cause: {TIMESTAMPS}"
    assert json.loads((tmp_path / "b-result.json").read_text())["status"] == "skipped"


def _shape(owners: tuple[str, ...]) -> ConformanceFailure:
    failure = ConformanceFailure("§2 ExternalAccount", "status is not one of the three")
    failure.charged_to, failure.owners = owners[0], owners[1:]
    failure.cause = "answers of schema 'external-account' break it: $.status: not one of"
    return failure


def test_a_test_holding_any_owner_of_the_shape_fails_on_it_charged_to_that_one():
    owners = ("EXTERNAL-ACCOUNT-FIELDS", "EXTERNAL-ACCOUNT-STATUS-VALUES")
    own = _Report()
    charge(own, ["EXTERNAL-ACCOUNT-STATUS-VALUES", "X"], _shape(owners))
    assert own.outcome == "failed"
    cause = Cause.from_property(own.user_properties[0][1])
    assert cause.requirement == "EXTERNAL-ACCOUNT-STATUS-VALUES"
    other = _Report()
    charge(other, ["QUOTE-CREATE-201"], _shape(owners))
    assert other.outcome == "skipped" and "EXTERNAL-ACCOUNT-FIELDS" in other.longrepr[2]


def test_a_blocked_test_is_charged_where_its_defect_failed_a_test():
    observed = "answers of schema 'external-account' break it: $.status"
    failed = _Result("a", "failed", cause=Cause("§2", "EXTERNAL-ACCOUNT-STATUS-VALUES", observed))
    blocked = _Result("b", "blocked", cause=Cause("§2", "EXTERNAL-ACCOUNT-FIELDS", observed))
    elsewhere = _Result("c", "blocked", cause=Cause("§2", "EXTERNAL-ACCOUNT-FIELDS", "other"))
    settle([failed, blocked, elsewhere])
    assert blocked.cause is not None and elsewhere.cause is not None
    assert blocked.cause.requirement == "EXTERNAL-ACCOUNT-STATUS-VALUES"
    assert "EXTERNAL-ACCOUNT-STATUS-VALUES" in blocked.message
    assert elsewhere.cause.requirement == "EXTERNAL-ACCOUNT-FIELDS"
    assert len(summarize([failed, blocked, elsewhere])) == 2


def test_every_shape_area_names_a_schema_and_requirements_of_the_catalogue():
    names = set(default_registry().names())
    for schema in SCHEMA_AREAS:
        assert schema in names, schema
        assert owners_of(schema), schema


def test_the_requirements_naming_the_broken_member_come_first():
    owners = owners_of(
        "platform-config", ("supportedCurrencies", 0, "providerRequiredCustomerFields")
    )
    assert owners[0].startswith("CONFIG-PROVIDER-FIELDS")
    assert set(owners) == set(owners_of("platform-config"))
    assert all(rid.startswith("CONFIG-") for rid in owners)
    assert owners_of("errors/error-401", ()) == ("AUTH-401-REASON",)
    assert owners_of("webhooks/envelope") == ()


def test_a_cause_is_named_after_the_requirement_most_of_its_tests_were_charged_to():
    # a 500 on POST /quotes: one test about quotes fails under its own requirement, which
    # is not the operation's; the blocked ones keep the operation's (a test failed it too)
    observed = "POST /quotes answered 500"
    own = _Result("a", "failed", cause=Cause("§4", "QUOTE-IMMEDIATE-EXECUTE-COMPLETED", observed))
    about = _Result("b", "failed", cause=Cause("§4", "QUOTE-CREATE-201", observed))
    blocked = [_Result(f"c{n}", "blocked", cause=Cause("§4", "QUOTE-CREATE-201", observed))
               for n in range(3)]  # fmt: skip
    settle([own, about, *blocked])
    assert all(b.cause is not None and b.cause.requirement == "QUOTE-CREATE-201" for b in blocked)
    [cause] = summarize([own, about, *blocked])
    assert cause["requirement"] == "QUOTE-CREATE-201"
    assert len(cause["failed"]) == 2 and len(cause["blocked"]) == 3
