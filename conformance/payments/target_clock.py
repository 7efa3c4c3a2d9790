"""When the target's clock has surely passed an instant it stated (a quote's ``expiresAt``).

Two proofs, whichever comes first:

- **The Date header.** It counts whole seconds, so a Date later than ``expiresAt`` proves
  the target's clock is past it; but it proves it up to a second late.
- **The time since the answer that carried ``createdAt``.** The target stamped
  ``createdAt`` before it answered, so when the answer arrived its clock read at least
  ``createdAt``; a local monotonic clock then tells how far it has moved since. Once more
  than ``expiresAt - createdAt`` has passed locally, plus a margin for the timestamps'
  resolution and for two clocks that tick at slightly different rates, the target's clock
  is past ``expiresAt`` too. This ends a wait within a tenth of a second of the expiry.
"""

from __future__ import annotations

import re

from conformance.ground.timestamps import parse_timestamp

__all__ = ["CLOCK_SKEW_S", "RATE_TOLERANCE", "expiry_proven_at", "timestamp_resolution"]

# Slack for a target whose servers stamp and check times on clocks a little apart.
CLOCK_SKEW_S = 0.1
# How much faster our clock may tick than the target's: 1,000 ppm, twice the largest slew
# NTP applies, so a 15-minute lifetime gets 0.9 s more.
RATE_TOLERANCE = 0.001
_FRACTION = re.compile(r"T\d{2}:\d{2}:\d{2}(?:[.,](\d+))?")


def timestamp_resolution(value: object) -> float:
    """The resolution of an ISO 8601 timestamp as written: 0.001 s for milliseconds, 1 s
    for whole seconds (and for anything not read as a time)."""
    if not isinstance(value, str):
        return 1.0
    found = _FRACTION.search(value)
    if found is None or found.group(1) is None:
        return 1.0
    return 10.0 ** -min(len(found.group(1)), 9)


def expiry_proven_at(created: object, expires: object, answered_at: float) -> float | None:
    """The local ``time.monotonic()`` after which the target's clock is surely past
    ``expires``, given that its answer carrying ``created`` arrived at ``answered_at``
    (monotonic); None when either timestamp cannot be read."""
    created_at, expires_at = parse_timestamp(created), parse_timestamp(expires)
    if created_at is None or expires_at is None:
        return None
    lifetime = max((expires_at - created_at).total_seconds(), 0.0)
    # each timestamp may be rounded either way by up to its resolution
    margin = timestamp_resolution(created) + timestamp_resolution(expires)
    return answered_at + lifetime * (1 + RATE_TOLERANCE) + margin + CLOCK_SKEW_S
