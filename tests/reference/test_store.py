"""The SQLite store and the outbox, in process: atomicity and thread safety that later
money movement relies on, and the event envelope of ``enqueue_event``."""

from __future__ import annotations

import json
import random
import re
import threading
from pathlib import Path

import pytest

from reference.kernel.db import Database
from reference.kernel.platforms import PRIMARY, seed_platforms
from reference.kernel.settings import ServerSettings
from reference.server.schema import STATEMENTS
from reference.server.services import open_services
from reference.webhooks.outbox import (
    JITTER,
    MAX_ATTEMPTS,
    RETRY_DELAYS_S,
    Outbox,
    RetrySchedule,
)


@pytest.fixture
def db() -> Database:
    database = Database(":memory:")
    database.create_schema(["CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER)"])
    database.execute("INSERT INTO counter (id, n) VALUES (1, 0)")
    return database


def count(db: Database) -> int:
    row = db.fetchone("SELECT n FROM counter WHERE id = 1")
    assert row is not None
    return int(row["n"])


def test_transaction_rolls_back_on_error(db: Database) -> None:
    with pytest.raises(RuntimeError), db.transaction():
        db.execute("UPDATE counter SET n = n + 1")
        raise RuntimeError("boom")
    assert count(db) == 0


def test_nested_transaction_rolls_back_only_its_part(db: Database) -> None:
    with db.transaction():
        db.execute("UPDATE counter SET n = n + 1")
        with pytest.raises(RuntimeError), db.transaction():
            db.execute("UPDATE counter SET n = n + 10")
            raise RuntimeError("inner")
    assert count(db) == 1


def test_read_modify_write_transactions_do_not_interleave(db: Database) -> None:
    def bump() -> None:
        for _ in range(50):
            with db.transaction():
                current = count(db)
                db.execute("UPDATE counter SET n = ?", (current + 1,))

    threads = [threading.Thread(target=bump) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert count(db) == 400


def test_enqueue_event_writes_the_envelope_to_the_outbox(tmp_path: Path) -> None:
    services = open_services(ServerSettings(db_path=str(tmp_path / "s.sqlite3")))
    try:
        primary = seed_platforms(services.db)[PRIMARY]
        data = {"id": "Transaction:1", "status": "COMPLETED"}
        assert (
            services.webhooks.enqueue_event(primary.id, "OUTGOING_PAYMENT.COMPLETED", data) is None
        )
        services.db.execute(
            "UPDATE platform_configs SET webhook_endpoint = ? WHERE platform_id = ?",
            ("https://hooks.example.com/x", primary.id),
        )
        event_id = services.webhooks.enqueue_event(primary.id, "OUTGOING_PAYMENT.COMPLETED", data)
        assert event_id is not None and re.fullmatch(r"Webhook:[0-9a-f-]{36}", event_id)
        [row] = Outbox(services.db).due(now=float("inf"))
        assert row.target_url == "https://hooks.example.com/x"
        envelope = json.loads(row.body)
        assert list(envelope) == ["id", "type", "timestamp", "data"]
        assert envelope["id"] == event_id and envelope["data"] == data
        assert envelope["type"] == "OUTGOING_PAYMENT.COMPLETED"
    finally:
        services.db.close()


def test_outbox_gives_up_after_the_last_attempt() -> None:
    db = Database(":memory:")
    db.create_schema(STATEMENTS)
    platform = seed_platforms(db)[PRIMARY]
    outbox = Outbox(db)
    outbox.enqueue(
        event_id="Webhook:x",
        platform_id=platform.id,
        event_type="TEST",
        target_url="https://example.com",
        body=b"{}",
    )
    for attempt in range(MAX_ATTEMPTS):
        [row] = outbox.due(now=float("inf"))
        assert row.attempts == attempt
        outbox.record_failed_attempt(row, 500, "HTTP 500", now=0.0)
    assert outbox.due(now=float("inf")) == []
    state = db.fetchone("SELECT state, attempts FROM webhook_outbox")
    assert state is not None and (state["state"], state["attempts"]) == ("failed", MAX_ATTEMPTS)


def test_retries_back_off_over_a_day_with_jitter() -> None:
    schedule = RetrySchedule(rng=random.Random(24))
    assert [schedule.delay_after(n) is None for n in (0, MAX_ATTEMPTS)] == [True, True]
    assert RETRY_DELAYS_S[0] <= 10, "a blip is retried within seconds"
    assert sum(RETRY_DELAYS_S) * (1 - JITTER) >= 24 * 3600, "retries span at least a day"
    assert list(RETRY_DELAYS_S) == sorted(RETRY_DELAYS_S)
    for attempts, base in enumerate(RETRY_DELAYS_S, start=1):
        delays = {schedule.delay_after(attempts) for _ in range(50)}
        assert all(d is not None and abs(d - base) <= base * JITTER for d in delays)
        assert len(delays) > 1, "no jitter"
    compressed = RetrySchedule(scale=0.001, rng=random.Random(24))
    delay = compressed.delay_after(len(RETRY_DELAYS_S))
    assert delay is not None and delay <= RETRY_DELAYS_S[-1] * 0.001 * (1 + JITTER)


def test_the_next_attempt_time_is_stored() -> None:
    db = Database(":memory:")
    db.create_schema(STATEMENTS)
    platform = seed_platforms(db)[PRIMARY]
    outbox = Outbox(db, RetrySchedule(rng=random.Random(1)))
    outbox.enqueue(
        event_id="Webhook:y",
        platform_id=platform.id,
        event_type="TEST",
        target_url="https://example.com",
        body=b"{}",
    )
    [row] = outbox.due(now=float("inf"))
    outbox.record_failed_attempt(row, None, "refused", now=1000.0)
    assert outbox.due(now=1000.0 + RETRY_DELAYS_S[0] * (1 - JITTER) - 0.001) == []
    stored = outbox.next_attempt_after(1000.0)
    assert (
        stored is not None
        and abs(stored - 1000.0 - RETRY_DELAYS_S[0]) <= RETRY_DELAYS_S[0] * JITTER
    )
