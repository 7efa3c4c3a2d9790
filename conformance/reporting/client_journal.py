"""The journal a client check leaves (``client-check.jsonl``, written by the reference
sandbox as it judges each request; the kit never imports the sandbox, it reads the file):
the rules, how many requests each looked at, the findings and the advisories.

A sandbox killed outright may leave a last line cut short: it is ignored, as is any line
that is not a record of the journal's kinds.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["JOURNAL_FILE", "ClientJournal", "JournalRule", "read_journal"]

JOURNAL_FILE = "client-check.jsonl"


@dataclass(frozen=True, slots=True)
class JournalRule:
    """One rule the sandbox judged by: its id, clause, part and title."""

    id: str
    clause: str
    part: str
    title: str


@dataclass(slots=True)
class ClientJournal:
    """What the check recorded, in arrival order."""

    base_url: str | None = None
    rules: list[JournalRule] = field(default_factory=list)
    requests: int = 0
    checked: Counter[str] = field(default_factory=Counter)
    findings: list[dict[str, Any]] = field(default_factory=list)
    advisories: list[dict[str, Any]] = field(default_factory=list)
    started: bool = False  # the sandbox wrote its start line: it served


def _rule(entry: Any) -> JournalRule | None:
    if not isinstance(entry, dict):
        return None
    values = [entry.get(key) for key in ("id", "clause", "part", "title")]
    if not all(isinstance(value, str) for value in values):
        return None
    return JournalRule(*map(str, values))


def read_journal(folder: Path) -> ClientJournal:
    """The journal in ``folder``; empty when there is none (the sandbox never started)."""
    journal = ClientJournal()
    try:
        text = (folder / JOURNAL_FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return journal
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:  # a line cut short by a kill
            continue
        if not isinstance(record, dict):
            continue
        kind = record.get("kind")
        if kind == "start":
            journal.started = True
            journal.base_url = record.get("base_url")
            journal.rules = [r for r in map(_rule, record.get("rules") or []) if r is not None]
        elif kind == "request":
            journal.requests += 1
            journal.checked.update(str(rule) for rule in record.get("checked") or [])
        elif kind == "finding":
            journal.findings.append(record)
        elif kind == "advisory":
            journal.advisories.append(record)
    return journal
