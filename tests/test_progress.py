"""Long waits say what they await and for how long at most; short ones stay silent."""

from __future__ import annotations

from conformance.ground import progress


def test_a_long_wait_is_announced_reported_and_closed(monkeypatch):
    lines: list[str] = []
    clock = [100.0]
    monkeypatch.setattr(progress, "_writer", lines.append)
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    wait = progress.WaitProgress("quote Q to expire", 60)
    clock[0] += 31
    wait.tick(29)
    wait.done()
    assert lines == [
        "conformance: waiting for quote Q to expire: at most 60 s",
        "conformance: still waiting for quote Q to expire: 31 s so far, at most 29 s left",
        "conformance: done waiting for quote Q to expire (31 s)",
    ]


def test_a_quiet_wait_speaks_only_once_it_lasts(monkeypatch):
    lines: list[str] = []
    clock = [0.0]
    monkeypatch.setattr(progress, "_writer", lines.append)
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    quick = progress.WaitProgress("a webhook", 30, quiet_s=5)
    clock[0] += 1
    quick.tick(29)
    quick.done()
    assert lines == []
    slow = progress.WaitProgress("a webhook", 30, quiet_s=5)
    clock[0] += 6
    slow.tick(24)
    slow.done()
    assert lines == [
        "conformance: waiting for a webhook: 6 s so far, at most 24 s left",
        "conformance: done waiting for a webhook (6 s)",
    ]


def test_short_waits_and_runs_without_a_console_say_nothing(monkeypatch):
    lines: list[str] = []
    monkeypatch.setattr(progress, "_writer", lines.append)
    progress.WaitProgress("a 5 s quote", 6).done()
    monkeypatch.setattr(progress, "_writer", None)
    progress.WaitProgress("a 60 s quote", 61).done()
    assert lines == []
