"""Timestamps as the interface shows them: ISO 8601 UTC with ``Z``, millisecond precision."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


def utc_now() -> datetime:
    """The current time, UTC, truncated to whole milliseconds so it round-trips exactly."""
    now = datetime.now(UTC)
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


def iso(moment: datetime) -> str:
    """``2025-10-13T12:34:56.789Z``."""
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def parse_iso(text: str) -> datetime:
    """The inverse of ``iso``."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def later_than(previous: str) -> str:
    """Now, or one millisecond after ``previous`` if the clock has not moved past it.

    Two writes in the same millisecond must still give distinct, increasing ``updatedAt``.
    """
    now = utc_now()
    floor = parse_iso(previous) + timedelta(milliseconds=1)
    return iso(max(now, floor))
