"""Timestamps as the interface writes them (ISO 8601), read once for every floor above."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["parse_timestamp"]


def parse_timestamp(value: object) -> datetime | None:
    """Parse an ISO 8601 string (or epoch seconds) into an aware UTC-based datetime."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return datetime.fromtimestamp(float(value), tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
