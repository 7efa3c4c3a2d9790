"""The interface coverage map: what a run actually did to the target, laid against what the
interface names (``contract/interface_catalogue.py``), beside what the suite meant to check.

``summary.json``'s ``interface_coverage`` holds:

- ``operations``: every §4 operation, with the requests sent, the statuses seen, the request
  fields sent and the response fields observed (dotted paths, ``[]`` for list items);
- ``events``: every §6 event type, with the deliveries the sinks received;
- ``transitions``: every §3 transition, with how often a resource was seen making it;
- ``enums``: every value §2 lists for a field, with how often a response carried it.

It is fed from what the run records anyway. Each process turns a test's exchanges (the ones
its evidence and Allure get) into a *contribution* (:meth:`Recorder.contribution`), carried to
the controller on the test's report as a user property, so xdist workers add up without a
channel of their own; the controller adds the sinks' deliveries at the end. The bodies read
are the redacted ones the evidence holds (indented JSON, cut at a size bound): a body cut
short still gives its top-level members.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import pytest

from conformance.contract import clauses
from conformance.contract.endpoint_schemas import list_items, match_endpoint, normalize_path
from conformance.contract.interface_catalogue import (
    ENUM_SECTIONS,
    EVENT_TYPES,
    OPERATIONS,
    TRANSITIONS,
    enum_values,
    match_operation,
)
from conformance.exchange.decoding import DecodeProblem, decode_json

__all__ = [
    "COVERAGE_PROPERTY",
    "RECORDER_KEY",
    "InterfaceCoverage",
    "Recorder",
    "headline_counts",
    "markdown_lines",
]

# The user property a test's report carries its contribution in (JSON).
COVERAGE_PROPERTY = "conformance_interface_coverage"
# Deeper members are not listed: the map stays a map, not a copy of every body.
_MAX_DEPTH = 3
# Bounds on what a target's answers and deliveries can add: a target answering with
# thousands of member names, or posting event types of its own, leaves a map still readable.
_MAX_FIELDS = 300
_MAX_NAME = 120
_MAX_UNNAMED = 50
# A top-level member of a body the redaction layer indented by two spaces, read from a body
# that was cut short and no longer parses.
_TOP_MEMBER = re.compile(r'^  "([^"\\]+)":', re.MULTILINE)
# The status fields §3 moves, per resource (the schema a response follows).
_MOVING = {(t.resource, t.field) for t in TRANSITIONS}
_SAME_RESOURCE = {"transaction-list-item": "transaction"}


def _body(text: str) -> tuple[Any, list[str]]:
    """The decoded body (None when it does not parse) and, when it does not, the top-level
    members its text still shows."""
    if not text:
        return None, []
    try:  # the kit's bounded decoder: a hostile body nested a million deep is refused
        return decode_json(text), []
    except (DecodeProblem, ValueError, RecursionError):  # cut short, not JSON, too deep
        return None, sorted(set(_TOP_MEMBER.findall(text)))


def _paths(value: Any, prefix: str = "", depth: int = 0) -> Iterable[tuple[str, Any]]:
    """Every member of ``value`` as ``(dotted path, value)``, to ``_MAX_DEPTH`` levels."""
    if depth >= _MAX_DEPTH:
        return
    if isinstance(value, dict):
        for key, inner in value.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            yield path, inner
            yield from _paths(inner, path, depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield from _paths(item, f"{prefix}[]", depth)


# A path segment that names one resource ("Quote:<uuid>", a uuid, a number): the map keeps
# one row per route, not per resource.
_ID_SEGMENT = re.compile(r"^(?:[A-Za-z]+:)?[0-9a-fA-F-]*[0-9][0-9a-fA-F-]*$")


def _templated(path: str) -> str:
    return "/".join("{id}" if _ID_SEGMENT.match(s) else s for s in path.split("/"))


def _query_names(url: str) -> list[str]:
    query = url.partition("?")[2].partition("#")[0]
    return sorted({f"?{pair.partition('=')[0]}" for pair in query.split("&") if pair})


class Recorder:
    """One process's reading of its tests' exchanges: what each test contributes, and the
    last status of every resource seen, so a move across tests is seen too."""

    def __init__(self) -> None:
        self._last: dict[tuple[str, str, str], str] = {}  # (resource, field, id) -> value

    def contribution(self, exchanges: Sequence[Any]) -> dict[str, Any]:
        """What ``exchanges`` (one test's, in order) add to the map (empty: nothing)."""
        ops: dict[str, dict[str, Any]] = {}
        other: dict[str, int] = {}
        moves: dict[str, int] = {}
        enums: dict[str, dict[str, int]] = {}
        for exchange in exchanges:
            operation = match_operation(exchange.method, exchange.url)
            if operation is None:
                key = f"{exchange.method} {_templated(normalize_path(exchange.url))}"
                other[key] = other.get(key, 0) + 1
                continue
            entry = ops.setdefault(operation.name, {"n": 0, "s": {}, "req": [], "res": []})
            entry["n"] += 1
            status = "no answer" if exchange.status is None else str(exchange.status)
            entry["s"][status] = entry["s"].get(status, 0) + 1
            sent, sent_top = _body(exchange.request_body)
            entry["req"] += [p for p, _ in _paths(sent)] + sent_top + _query_names(exchange.url)
            answer, answer_top = _body(exchange.response_body)
            entry["res"] += [p for p, _ in _paths(answer)] + answer_top
            if exchange.status in (200, 201, 202) and answer is not None:
                self._read_resource(exchange, answer, moves, enums)
        for entry in ops.values():
            entry["req"] = sorted({f for f in entry["req"] if len(f) <= _MAX_NAME})[:_MAX_FIELDS]
            entry["res"] = sorted({f for f in entry["res"] if len(f) <= _MAX_NAME})[:_MAX_FIELDS]
        found = {"ops": ops, "other": other, "moves": moves, "enums": enums}
        return {key: value for key, value in found.items() if value}

    def _read_resource(
        self,
        exchange: Any,
        answer: Any,
        moves: dict[str, int],
        enums: dict[str, dict[str, int]],
    ) -> None:
        """The listed values and the status moves a successful answer shows."""
        endpoint = match_endpoint(exchange.method, exchange.url)
        if endpoint is None or endpoint.response is None:
            return
        resource = _SAME_RESOURCE.get(endpoint.response, endpoint.response)
        items = (list_items(answer) or []) if endpoint.is_list else [answer]
        self.read_resources(resource, items, moves, enums)

    def read_resources(
        self,
        resource: str,
        items: Iterable[Any],
        moves: dict[str, int],
        enums: dict[str, dict[str, int]],
    ) -> None:
        """Note the listed values ``items`` (statements of ``resource``) carry, and each
        status that moved since the last statement of the same id."""
        listed = enum_values()
        for item in items:
            if not isinstance(item, dict):
                continue
            rid = item.get("id")
            for path, value in _paths(item):
                if not isinstance(value, str):
                    continue
                name = f"{resource}.{path}"
                if name in listed:
                    counts = enums.setdefault(name, {})
                    counts[value] = counts.get(value, 0) + 1
                if isinstance(rid, str) and (resource, path) in _MOVING:
                    before = self._last.get((resource, path, rid))
                    self._last[(resource, path, rid)] = value
                    if before is not None and before != value:
                        move = f"{resource}.{path}: {before} -> {value}"
                        moves[move] = moves.get(move, 0) + 1


RECORDER_KEY = pytest.StashKey[Recorder]()


def _add(counts: dict[str, int], more: Mapping[str, int]) -> None:
    for key, value in more.items():
        counts[key] = counts.get(key, 0) + int(value)


class InterfaceCoverage:
    """The controller's sum of every test's contribution, and the sinks' deliveries.

    ``deliveries`` gives, when the summary is built, every delivery the run's sinks hold
    (anything with ``event_type`` and ``json``); None when the run has no sink.
    """

    def __init__(self, deliveries: Callable[[], Iterable[Any]] | None = None) -> None:
        self.deliveries = deliveries
        self._ops: dict[str, dict[str, Any]] = {}
        self._other: dict[str, int] = {}
        self._moves: dict[str, int] = {}
        self._enums: dict[str, dict[str, int]] = {}

    def add_report(self, report: pytest.TestReport) -> None:
        """Add the contribution a test's report carries, if any."""
        for key, value in report.user_properties:
            if key == COVERAGE_PROPERTY:
                self.add(json.loads(str(value)))

    def add(self, part: Mapping[str, Any]) -> None:
        for name, entry in (part.get("ops") or {}).items():
            mine = self._ops.setdefault(name, {"n": 0, "s": {}, "req": set(), "res": set()})
            mine["n"] += entry["n"]
            _add(mine["s"], entry["s"])
            for mine_fields, more in ((mine["req"], entry["req"]), (mine["res"], entry["res"])):
                mine_fields.update(more[: max(0, _MAX_FIELDS - len(mine_fields))])
        _add(self._other, part.get("other") or {})
        _add(self._moves, part.get("moves") or {})
        for name, counts in (part.get("enums") or {}).items():
            _add(self._enums.setdefault(name, {}), counts)

    def _events(self, moves: dict[str, int], enums: dict[str, dict[str, int]]) -> dict[str, int]:
        """Deliveries per event type; payment events' transactions feed moves and values."""
        received: dict[str, int] = {}
        recorder = Recorder()
        for delivery in self.deliveries() if self.deliveries is not None else ():
            kind = delivery.event_type
            if not _counted_type(kind, received):
                continue
            received[kind] = received.get(kind, 0) + 1
            data = (delivery.json or {}).get("data") if isinstance(delivery.json, dict) else None
            if kind.startswith(("OUTGOING_PAYMENT.", "INCOMING_PAYMENT.")):
                recorder.read_resources("transaction", [data], moves, enums)
        return received

    def view(self) -> dict[str, Any]:
        """The summary's ``interface_coverage``."""
        moves, enums = dict(self._moves), {k: dict(v) for k, v in self._enums.items()}
        received = self._events(moves, enums)
        operations = []
        for op in OPERATIONS:
            entry = self._ops.get(op.name) or {"n": 0, "s": {}, "req": (), "res": ()}
            operations.append({
                "operation": op.name,
                "section": op.section,
                "requests": entry["n"],
                "statuses": dict(sorted(entry["s"].items())),
                "request_fields": sorted(entry["req"]),
                "response_fields": sorted(entry["res"]),
            })  # fmt: skip
        listed = enum_values()
        listed_moves = {t.name for t in TRANSITIONS}
        return {
            "operations": operations,
            "requests_outside_the_operations": dict(sorted(self._other.items())),
            "events": [
                {"type": kind, "section": clauses.EVENTS, "received": received.get(kind, 0)}
                for kind in EVENT_TYPES
            ],
            "events_not_named": {k: n for k, n in sorted(received.items()) if k not in EVENT_TYPES},
            # observed: between two statements of one resource the target made; announced:
            # by the event §3 says the move fires
            "transitions": [
                {
                    "transition": t.name,
                    "section": t.section,
                    "observed": moves.get(t.name, 0),
                    "announced": received.get(t.event, 0) if t.event else None,
                }
                for t in TRANSITIONS
            ],
            "moves_not_listed": {k: n for k, n in sorted(moves.items()) if k not in listed_moves},
            "enums": [
                {
                    "field": name,
                    "section": ENUM_SECTIONS.get(name.split(".", 1)[0], ""),
                    "values": {v: enums.get(name, {}).get(v, 0) for v in values},
                }
                for name, values in listed.items()
            ],
        }


def _counted_type(kind: str | None, received: Mapping[str, int]) -> bool:
    """Whether a delivery's type is counted: a §6 type, or one of a bounded few others."""
    if kind is None:
        return False
    if kind in EVENT_TYPES or kind in received:
        return True
    unnamed = sum(1 for k in received if k not in EVENT_TYPES)
    return len(kind) <= _MAX_NAME and unnamed < _MAX_UNNAMED


def headline_counts(coverage: Mapping[str, Any]) -> dict[str, str]:
    """One line per kind: "41 of 42" operations requested, events received, transitions
    observed, listed values seen."""
    ops = coverage.get("operations") or []
    events = coverage.get("events") or []
    moves = coverage.get("transitions") or []
    values = [n for row in coverage.get("enums") or [] for n in row["values"].values()]
    return {
        "operations": f"{sum(1 for o in ops if o['requests'])} of {len(ops)} requested",
        "events": f"{sum(1 for e in events if e['received'])} of {len(events)} received",
        "transitions": f"{sum(1 for t in moves if t['observed'] or t.get('announced'))} of "
        f"{len(moves)} observed or announced",
        "enum values": f"{sum(1 for n in values if n)} of {len(values)} seen",
    }


def markdown_lines(summary: Mapping[str, Any]) -> list[str]:
    """``summary.md``'s compact table of the map (nothing when the summary has none)."""
    coverage = summary.get("interface_coverage")
    if not coverage:
        return []
    counts = headline_counts(coverage)
    lines = [
        "",
        "## Interface coverage (what the run sent and saw)",
        "",
        "; ".join(f"{kind}: {text}" for kind, text in counts.items()),
        "",
        "| operation | requests | statuses | request fields | response fields |",
        "|---|---|---|---|---|",
    ]
    for op in coverage["operations"]:
        statuses = ", ".join(f"{code}: {n}" for code, n in op["statuses"].items()) or "-"
        lines.append(
            f"| `{op['operation']}` | {op['requests']} | {statuses} "
            f"| {len(op['request_fields'])} | {len(op['response_fields'])} |"
        )
    missing = [e["type"] for e in coverage["events"] if not e["received"]]
    if missing:
        lines += ["", f"Event types never received: {', '.join(missing)}"]
    unseen = [
        t["transition"]
        for t in coverage["transitions"]
        if not (t["observed"] or t.get("announced"))
    ]
    if unseen:
        lines += ["", f"Transitions (§3) neither observed nor announced: {'; '.join(unseen)}"]
    return lines
