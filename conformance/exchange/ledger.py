"""The cross-check ledger: what a target states twice about one resource must agree.

The client feeds it every validated 2xx JSON answer (the resource, or each list item;
``ledger_answers.py``) and the webhook sink every authentic payment event (its ``data`` is
the Transaction, §6). Per platform (base URL and token id: two platforms are never
compared) and resource id it keeps only the compared fields (``contract/stable_fields.py``),
each with where and when it was first stated, and the latest status and kept entries. A new
statement is compared with them:

- a fixed field must equal its first statement, wherever either was made;
- a status and kept entries are compared only with a statement whose answer was read
  before the new request was sent: concurrent requests have no order, and an event states
  a moment the sink cannot place among answers, so events take part in fixed fields only;
- values about one thing agree across resources: a currency's ``decimals`` per code, and a
  quote's totals, currencies and rate with the transaction it created.

A disagreement names the clause, the field, both values and where and when each was
stated. Each process (each xdist worker) keeps its own ledger: comparisons stay within a
worker.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from conformance.contract import stable_fields as rules
from conformance.contract.failures import ConformanceFailure, shorten

__all__ = ["Disagreement", "Ledger", "Sighting", "current_test", "now_sighting"]

# what an event whose data disagrees with the resource breaks (§6: data is the Transaction)
EVENT_DATA_REQUIREMENT = "WEBHOOK-PAYMENT-DATA-IS-TRANSACTION"
Scope = tuple[str, str]
_ABSENT: Any = object()


@dataclass(frozen=True, slots=True)
class Sighting:
    """Where and when the target stated a resource: an answer (``method`` and ``target``,
    the path; ``sent`` and ``read``, monotonic times) or an event (``method`` ``WEBHOOK``,
    ``target`` its type and id; no times, it cannot be placed among answers)."""

    method: str
    target: str
    status: int | None
    test: str | None
    at: float
    sent: float | None = None
    read: float | None = None

    def describe(self) -> str:
        """One line: what stated it, when (UTC) and in which test."""
        when = datetime.fromtimestamp(self.at, UTC).isoformat(timespec="milliseconds")
        answer = f" -> {self.status}" if self.status is not None else ""
        test = f" in {self.test}" if self.test else ""
        return f"{self.method} {self.target}{answer} at {when}{test}"

    def follows(self, earlier: Sighting) -> bool:
        """Whether this answer's request was sent after ``earlier``'s answer was read."""
        return None not in (self.sent, earlier.read) and self.sent >= earlier.read  # type: ignore[operator]


@dataclass(frozen=True, slots=True)
class Disagreement:
    """Two statements of one thing that the interface makes equal (or ordered) and are not."""

    clause: str
    statement: str
    field: str
    before: object
    before_at: Sighting
    after: object
    after_at: Sighting
    requirement: str | None = None  # the one rule it breaks, where it is one

    def failure(self, exchange: Any = None) -> ConformanceFailure:
        """The clause failure, naming both statements."""
        return ConformanceFailure(
            self.clause,
            self.statement,
            expected=self.before,
            observed=self.after,
            hint=f"{self.field} was {shorten(self.before, 120)} in {self.before_at.describe()}; "
            f"it is {shorten(self.after, 120)} in {self.after_at.describe()}",
            exchange=exchange,
            requirement=self.requirement,
        )


class _Entry:
    """What the ledger keeps of one resource."""

    __slots__ = ("fixed", "kept", "moving", "rid")

    def __init__(self, rid: str) -> None:
        self.rid = rid
        self.fixed: dict[str, tuple[object, Sighting]] = {}
        self.moving: dict[str, tuple[object, Sighting]] = {}
        self.kept: dict[str, tuple[dict[str, object], Sighting]] = {}


def value_at(body: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted path, or ``_ABSENT``."""
    value: Any = body
    for key in path.split("."):
        if not isinstance(value, Mapping) or key not in value:
            return _ABSENT
        value = value[key]
    return value


def _instant(value: object) -> object:
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return value
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return value


def _same(a: object, b: object, instant: bool) -> bool:
    if instant:
        return _instant(a) == _instant(b)
    return (type(a) is type(b) and a == b) or (_number(a) and _number(b) and a == b)


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _currencies(value: object, depth: int = 0) -> Iterator[tuple[str, object, str]]:
    """(code, decimals, where) of every currency object ``{code, decimals}`` in ``value``."""
    if depth > 6:
        return
    if isinstance(value, Mapping):
        code, decimals = value.get("code"), value.get("decimals")
        if isinstance(code, str) and "decimals" in value:
            yield code, decimals, "decimals"
        for key, item in value.items():
            for found_code, found, where in _currencies(item, depth + 1):
                yield found_code, found, f"{key}.{where}"
    elif isinstance(value, list):
        for item in value:
            yield from _currencies(item, depth + 1)


class Ledger:
    """Per platform and id, what the target stated; compares each new statement with it."""

    def __init__(self) -> None:
        self.enabled = True
        self.comparisons = 0
        self.statements = {"answer": 0, "event": 0}  # resources fed, by where they came from
        self._lock = threading.Lock()
        self._entries: dict[tuple[Scope, str], _Entry] = {}
        self._decimals: dict[tuple[Scope, str], tuple[object, Sighting]] = {}
        self._answered: set[tuple[Scope, str]] = set()  # the ids each platform's answers stated
        # each disagreement is reported once per test: a resource stated wrong once does not
        # fail every later test that reads it right, and a test that repeats what failed
        # (Hypothesis replaying its failing example) meets the same failure again
        self._reported: set[tuple[Scope, str, str, str, str | None]] = set()

    def clear(self) -> None:
        """Forget everything (a new session)."""
        with self._lock:
            self._entries.clear()
            self._decimals.clear()
            self._answered.clear()
            self._reported.clear()
            self.comparisons = 0
            self.statements = {"answer": 0, "event": 0}

    def __len__(self) -> int:
        return len(self._entries)

    def knows(self, scope: Scope, resource_id: str) -> bool:
        """Whether the platform ``scope`` stated the resource ``resource_id`` to this process
        in an answer (an event's data does not count: whose record it is, is the question)."""
        with self._lock:
            return (scope, resource_id) in self._answered

    def footprint(self) -> int:
        """The bytes the ledger's own records take, roughly (containers and values)."""
        import sys

        size = sys.getsizeof(self._entries) + sys.getsizeof(self._decimals)
        with self._lock:
            for key, entry in self._entries.items():
                size += sys.getsizeof(key) + sys.getsizeof(key[1])
                for book in (entry.fixed, entry.moving, entry.kept):
                    size += sys.getsizeof(book)
                    size += sum(sys.getsizeof(v[0]) for v in book.values())
            sightings = {
                id(v[1]): v[1]
                for e in self._entries.values()
                for b in (e.fixed, e.moving, e.kept)
                for v in b.values()
            }
            size += sum(sys.getsizeof(s) + sys.getsizeof(s.target) for s in sightings.values())
        return size

    def observe(
        self, scope: Scope, body: object, seen: Sighting, *, event: bool = False
    ) -> list[Disagreement]:
        """Compare one statement of a resource (``body``, whose ``id`` names its type) with
        what the ledger holds, record it, and return the disagreements."""
        if not self.enabled or not isinstance(body, Mapping):
            return []
        resource_id = body.get("id")
        kind = resource_id.split(":", 1)[0] if isinstance(resource_id, str) else ""
        found: list[Disagreement] = []
        with self._lock:
            self.statements["event" if event else "answer"] += 1
            self._check_decimals(scope, body, seen, found)
            kept = rules.RULES.get(kind)
            if kept is None or not isinstance(resource_id, str):
                return self._news(scope, found)
            if not event:
                self._answered.add((scope, resource_id))
            entry = self._entries.get((scope, resource_id))
            if entry is None:
                entry = self._entries[(scope, resource_id)] = _Entry(resource_id)
            label = resource_id
            self._check_fixed(kept, entry, body, seen, event, label, found)
            self._check_within(kept, body, seen, label, found)
            if not event:
                self._check_moves(kept, entry, body, seen, label, found)
                self._check_kept(kept, entry, body, seen, label, found)
            for link in rules.LINKS:
                self._check_link(scope, link, kind, entry, found)
            return self._news(scope, found)

    def _news(self, scope: Scope, found: list[Disagreement]) -> list[Disagreement]:
        fresh = []
        for disagreement in found:
            key = (
                scope,
                disagreement.statement,
                repr(disagreement.before),
                repr(disagreement.after),
                disagreement.after_at.test,
            )
            if key not in self._reported:
                self._reported.add(key)
                fresh.append(disagreement)
        return fresh

    def _check_decimals(
        self, scope: Scope, body: Mapping[str, Any], seen: Sighting, found: list[Disagreement]
    ) -> None:
        for code, decimals, where in _currencies(body):
            first = self._decimals.setdefault((scope, code), (decimals, seen))
            self.comparisons += first[1] is not seen
            if not _same(first[0], decimals, False):
                found.append(
                    Disagreement(
                        rules.CURRENCY_CLAUSE,
                        f"each currency object carries decimals, the places of the currency's "
                        f"smallest unit: {code} has one number of decimals wherever it appears "
                        f"(here at {where})",
                        f"{code} decimals",
                        first[0],
                        first[1],
                        decimals,
                        seen,
                    )
                )

    def _check_fixed(
        self, kept: rules.Rules, entry: _Entry, body: Mapping[str, Any], seen: Sighting,
        event: bool, label: str, found: list[Disagreement],
    ) -> None:  # fmt: skip
        for fixed in kept.fixed:
            value = value_at(body, fixed.path)
            if value is _ABSENT:
                continue
            first = entry.fixed.setdefault(fixed.path, (value, seen))
            if first[1] is seen:
                continue
            self.comparisons += 1
            if not _same(first[0], value, fixed.instant):
                clause = rules.EVENT_CLAUSE if event else fixed.clause
                where = "the event's data is the Transaction (part 2), and " if event else ""
                found.append(
                    Disagreement(
                        clause,
                        f"{where}{label} is one resource wherever it is stated, and its "
                        f"{fixed.path} does not change ({fixed.why})",
                        fixed.path,
                        first[0],
                        first[1],
                        value,
                        seen,
                        EVENT_DATA_REQUIREMENT
                        if event and label.startswith("Transaction:")
                        else None,
                    )
                )

    def _check_within(
        self, kept: rules.Rules, body: Mapping[str, Any], seen: Sighting, label: str,
        found: list[Disagreement],
    ) -> None:  # fmt: skip
        """Two timestamps of this one statement, held together by a limit."""
        for rule in kept.within:
            start, end = _instant(value_at(body, rule.start)), _instant(value_at(body, rule.end))
            if not isinstance(start, datetime) or not isinstance(end, datetime):
                continue  # absent or unreadable: the schema's checks say so
            self.comparisons += 1
            # a second for timestamps rounded to the second
            span = (end - start).total_seconds()
            if span > rule.longest_s + 1:
                found.append(
                    Disagreement(
                        rule.clause,
                        f"{label}'s {rule.end} is at most {rule.longest_s:g} s after its "
                        f"{rule.start} ({rule.why}); here it is {span:g} s after",
                        rule.end,
                        f"at most {rule.longest_s:g} s after {rule.start} "
                        f"{value_at(body, rule.start)}",
                        seen,
                        f"{value_at(body, rule.end)} ({span:g} s after)",
                        seen,
                    )
                )

    def _check_moves(
        self, kept: rules.Rules, entry: _Entry, body: Mapping[str, Any], seen: Sighting,
        label: str, found: list[Disagreement],
    ) -> None:  # fmt: skip
        for moves in kept.moves:
            value = value_at(body, moves.path)
            if value is _ABSENT:
                continue
            last = entry.moving.get(moves.path)
            if last is not None and seen.follows(last[1]):
                self.comparisons += 1
                if not moves.allows(last[0], value):
                    allowed = sorted(moves.after.get(str(last[0]), ()))
                    found.append(
                        Disagreement(
                            moves.clause,
                            f"{label}'s {moves.path} moves only along §3's transitions: after "
                            f"{last[0]} it may read {' or '.join(allowed) or 'nothing else'}",
                            moves.path,
                            last[0],
                            last[1],
                            value,
                            seen,
                        )
                    )
            if last is None or seen.follows(last[1]):
                entry.moving[moves.path] = (value, seen)

    def _check_kept(
        self, kept: rules.Rules, entry: _Entry, body: Mapping[str, Any], seen: Sighting,
        label: str, found: list[Disagreement],
    ) -> None:  # fmt: skip
        for rule in kept.kept:
            items = value_at(body, rule.path)
            if not isinstance(items, list):
                continue
            now = {
                str(item[rule.key]): item.get(rule.stamp)
                for item in items
                if isinstance(item, Mapping) and rule.key in item
            }
            last = entry.kept.get(rule.path)
            if last is not None and seen.follows(last[1]):
                self.comparisons += 1
                gone = sorted(key for key in last[0] if key not in now)
                back = sorted(
                    key
                    for key, stamp in last[0].items()
                    if key in now and _earlier(now[key], stamp)
                )
                if gone or back:
                    found.append(
                        Disagreement(
                            rule.clause,
                            f"{label}'s {rule.path} keeps every {rule.key} once stated, each "
                            f"with its latest {rule.stamp} ({rule.why}); "
                            + (f"{gone} are gone" if gone else f"{back} went back in time"),
                            rule.path,
                            last[0],
                            last[1],
                            now,
                            seen,
                        )
                    )
            if last is None or seen.follows(last[1]):
                entry.kept[rule.path] = (now, seen)

    def _check_link(
        self, scope: Scope, link: rules.Link, kind: str, entry: _Entry,
        found: list[Disagreement],
    ) -> None:  # fmt: skip
        """Compare the values ``link`` pairs once both resources are known and name each
        other (a quote whose transactionId names another transaction is not compared)."""
        if kind not in (link.kind, link.other):
            return
        named = entry.fixed.get(link.via if kind == link.kind else link.back)
        other = (
            self._entries.get((scope, named[0])) if named and isinstance(named[0], str) else None
        )
        if other is None:
            return
        mine, theirs = (entry, other) if kind == link.kind else (other, entry)
        back = theirs.fixed.get(link.back)
        via = mine.fixed.get(link.via)
        if (back is not None and back[0] != mine.rid) or (via is not None and via[0] != theirs.rid):
            return
        for ours, their in link.pairs:
            a, b = mine.fixed.get(ours), theirs.fixed.get(their)
            if a is None or b is None:
                continue
            self.comparisons += 1
            if not _same(a[0], b[0], False):
                later, earlier = (a, b) if a[1].at >= b[1].at else (b, a)
                found.append(
                    Disagreement(
                        link.clause,
                        f"{mine.rid} and {theirs.rid}, the {link.other.lower()} it names, "
                        f"state one value twice: {ours} and {their} ({link.why})",
                        f"{ours} / {their}",
                        earlier[0],
                        earlier[1],
                        later[0],
                        later[1],
                        link.requirement,
                    )
                )


def _earlier(now: object, before: object) -> bool:
    a, b = _instant(now), _instant(before)
    return isinstance(a, datetime) and isinstance(b, datetime) and a < b


def now_sighting(
    method: str, target: str, status: int | None, test: str | None, *, sent: float | None = None
) -> Sighting:
    """A sighting made now (``sent``: when its request left, monotonic)."""
    read = time.monotonic() if sent is not None else None
    return Sighting(method, target, status, test, time.time(), sent, read)


def current_test() -> str | None:
    """The test that is running (pytest sets ``PYTEST_CURRENT_TEST``), without its phase."""
    current = os.environ.get("PYTEST_CURRENT_TEST")
    return current.rsplit(" (", 1)[0] if current else None
