"""The SQLite store: one connection, one lock, explicit transactions.

Handlers run on the event loop, the slow-payment settler in a thread of its own, and in a
fault mode handlers and the webhook worker's bookkeeping in a thread pool
(``reference.kernel.sync_calls``), so every use of the connection takes one re-entrant
lock. Holding the lock for a whole ``transaction()`` makes transactions serial: a money
movement that reads a balance and writes it back cannot interleave with another.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

Params = Sequence[Any] | dict[str, Any]


class Database:
    """A thread-safe wrapper around one SQLite connection."""

    def __init__(self, path: str) -> None:
        # check_same_thread is off because the lock below does the guarding;
        # isolation_level=None leaves transaction control to transaction().
        self._conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._conn.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self._depth = 0
        self._conn.execute("PRAGMA foreign_keys = ON")
        if path != ":memory:":
            # WAL keeps a crash mid-write from corrupting the file a restart reopens.
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = NORMAL")

    def create_schema(self, statements: Iterable[str]) -> None:
        """Run idempotent DDL, one statement per item, in one transaction.

        Each statement must be safe to repeat (``CREATE TABLE IF NOT EXISTS``), because a
        restart with the same file runs them again.
        """
        with self.transaction():
            for statement in statements:
                self._conn.execute(statement)

    @contextmanager
    def transaction(self) -> Iterator[Database]:
        """Run the block atomically; nested blocks become savepoints of the outer one.

        ``BEGIN IMMEDIATE`` takes SQLite's write lock up front, so a transaction that
        starts by reading cannot fail later on upgrading to a writer.
        """
        with self._lock:
            outermost = self._depth == 0
            savepoint = f"sp{self._depth}"
            self._conn.execute("BEGIN IMMEDIATE" if outermost else f"SAVEPOINT {savepoint}")
            self._depth += 1
            try:
                yield self
            except BaseException:
                self._depth -= 1
                if outermost:
                    self._conn.execute("ROLLBACK")
                else:
                    self._conn.execute(f"ROLLBACK TO {savepoint}")
                    self._conn.execute(f"RELEASE {savepoint}")
                raise
            self._depth -= 1
            self._conn.execute("COMMIT" if outermost else f"RELEASE {savepoint}")

    def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement and return the number of rows it changed."""
        with self._lock:
            return self._conn.execute(sql, params).rowcount

    def fetchone(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        """The first row of a query, or None."""
        with self._lock:
            row: sqlite3.Row | None = self._conn.execute(sql, params).fetchone()
            return row

    def fetchall(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """All rows of a query."""
        with self._lock:
            return list(self._conn.execute(sql, params).fetchall())

    def close(self) -> None:
        """Close the connection; later calls fail."""
        with self._lock:
            self._conn.close()


def to_json(value: Any) -> str:
    """Compact JSON text for a JSON column."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def from_json(text: str | None) -> Any:
    """The value of a JSON column; NULL reads as None."""
    return None if text is None else json.loads(text)
