"""The journal: one JSON line per event, appended to ``client-check.jsonl`` in the check's
folder as requests are judged, so that a sandbox killed outright loses nothing already
judged. The kit reads it when the sandbox stops and writes the reports from it.

Lines: ``{"kind": "start", base_url, interface_version, rules: [...]}`` once;
``{"kind": "request", method, path, checked: [rule ids]}`` per judged request;
``{"kind": "finding" | "advisory", rule, clause, part, message, method, path, request}``.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any, TextIO

from reference import INTERFACE_VERSION
from reference.client_check.rules import RULES

JOURNAL_FILE = "client-check.jsonl"


class JournalError(Exception):
    """The check's folder cannot be written."""


class Journal:
    """An append-only JSON-lines file; each line written and flushed whole, under a lock."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.path = Path(folder) / JOURNAL_FILE
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # a new check starts a new journal: the last one's findings are not this one's
            self._file: TextIO = self.path.open("w", encoding="utf-8")
        except OSError as exc:
            raise JournalError(f"cannot write {self.path}: {exc.strerror or exc}") from exc
        self._lock = threading.Lock()

    def write(self, record: dict[str, Any]) -> None:
        """Append one record as a line and hand it to the OS at once."""
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        with self._lock:
            self._file.write(line)
            self._file.flush()

    def start(self, base_url: str) -> None:
        """The first line: where the sandbox serves and every rule it judges by."""
        self.write(
            {
                "kind": "start",
                "base_url": base_url,
                "interface_version": INTERFACE_VERSION,
                "rules": [rule.as_json() for rule in RULES],
            }
        )

    def close(self) -> None:
        """Close the file (the sandbox is stopping)."""
        with self._lock:
            self._file.close()
