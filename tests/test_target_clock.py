"""A wait for a quote's expiry ends at the first proof that the target's clock is past it,
never before: the Date header, or the time since the answer that created the quote."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import httpx
import pytest

from conformance.contract.failures import ConformanceFailure
from conformance.payments.quotes import EXPIRY_MARGIN_S, Quotes
from conformance.payments.target_clock import (
    CLOCK_SKEW_S,
    RATE_TOLERANCE,
    expiry_proven_at,
    timestamp_resolution,
)
from tests.answering_client import client_answering
from tests.schemas.samples import PLATFORM_CONFIG, QUOTE

LIFETIME_S = 0.4


@pytest.mark.parametrize(
    ("stamp", "resolution"),
    [
        ("2026-11-26T12:00:03Z", 1.0),
        ("2026-11-26T12:00:03.4Z", 0.1),
        ("2026-11-26T12:00:03.456+00:00", 0.001),
        ("2026-11-26T12:00:03,456789Z", 0.000001),
        ("2026-11-26T12:00:03.123456789123Z", 1e-9),
        ("2026-11-26", 1.0),
        (1_795_000_000, 1.0),
        (None, 1.0),
    ],
)
def test_a_timestamps_resolution_is_what_it_writes(stamp: Any, resolution: float) -> None:
    assert timestamp_resolution(stamp) == pytest.approx(resolution)


def test_the_proof_adds_the_lifetime_the_resolutions_a_rate_tolerance_and_skew() -> None:
    proven = expiry_proven_at("2026-11-26T12:00:00.000Z", "2026-11-26T12:00:03.000Z", 100.0)
    assert proven == pytest.approx(100.0 + 3 * (1 + RATE_TOLERANCE) + 0.002 + CLOCK_SKEW_S)
    # whole seconds may each hide up to a second
    coarse = expiry_proven_at("2026-11-26T12:00:00Z", "2026-11-26T12:00:03Z", 100.0)
    assert coarse == pytest.approx(100.0 + 3 * (1 + RATE_TOLERANCE) + 2.0 + CLOCK_SKEW_S)
    # an expiresAt before createdAt is past as soon as the margins are
    assert expiry_proven_at("2026-11-26T12:00:03Z", "2026-11-26T12:00:00Z", 0.0) == pytest.approx(
        2.0 + CLOCK_SKEW_S
    )


@pytest.mark.parametrize(
    ("created", "expires"),
    [(None, "2026-11-26T12:00:03Z"), ("x", "y"), ("2026-11-26T12:00:00Z", True)],
)
def test_no_proof_without_two_readable_timestamps(created: Any, expires: Any) -> None:
    assert expiry_proven_at(created, expires, 0.0) is None


def stamp(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def stated_for(lifetime_s: float) -> dict[str, str]:
    """A quote as a statement read elsewhere states it: created now, living ``lifetime_s``
    (a wait reads only its two timestamps; an answer stating over 15 minutes fails §8 at
    the client, before any wait)."""
    now = datetime.now(UTC)
    return {"id": "Quote:stated", "createdAt": stamp(now),
            "expiresAt": stamp(now + timedelta(seconds=lifetime_s))}  # fmt: skip


def money_against(date_header: datetime, lifetime_s: float) -> Quotes:
    """Quotes over a target that creates quotes living ``lifetime_s`` and whose Date header
    reads ``date_header`` whatever the time."""

    def answer(request: httpx.Request) -> httpx.Response:
        headers = {"date": format_datetime(date_header, usegmt=True)}
        if request.method == "POST" and request.url.path.endswith("/quotes"):
            now = datetime.now(UTC)
            quote = QUOTE | {"createdAt": stamp(now),
                             "expiresAt": stamp(now + timedelta(seconds=lifetime_s))}  # fmt: skip
            return httpx.Response(201, json=quote, headers=headers)
        return httpx.Response(200, json=PLATFORM_CONFIG, headers=headers)

    return Quotes(client_answering(answer))


def test_a_wait_ends_by_the_time_since_creation_when_the_date_header_lags() -> None:
    """The Date header never passes expiresAt here (a clock stuck an hour back): the wait
    ends once the quote's lifetime and the margins have passed since it was created, not
    before, and long before its bound."""
    money = money_against(datetime.now(UTC) - timedelta(hours=1), LIFETIME_S)
    before = time.monotonic()
    quote = money.quote({})
    money.wait_past(quote)
    waited = time.monotonic() - before
    assert waited >= LIFETIME_S + CLOCK_SKEW_S
    assert waited < LIFETIME_S + EXPIRY_MARGIN_S / 2, "the wait ran to its bound: no proof"


def test_a_wait_ends_at_once_when_the_date_header_is_past_expiry() -> None:
    """A quote whose answer was not seen (no creation time known) is proven expired by a
    Date header later than its expiresAt."""
    money = money_against(datetime.now(UTC) + timedelta(hours=1), 60.0)
    now = datetime.now(UTC)
    quote = {"id": "Quote:unseen", "createdAt": stamp(now),
             "expiresAt": stamp(now + timedelta(seconds=60))}  # fmt: skip
    before = time.monotonic()
    money.wait_past(quote)
    assert time.monotonic() - before < EXPIRY_MARGIN_S


def test_a_quote_stating_a_lifetime_over_15_minutes_fails_the_limit_at_once() -> None:
    """§8: a quote lives up to 15 minutes. One that states an hour is not awaited (a run
    ends within its bound): the wait fails the limit's clause, naming what was stated."""
    money = money_against(datetime.now(UTC), 3600.0)
    quote = stated_for(3600.0)  # the answer's own check refuses it first (stable_fields.py)
    before = time.monotonic()
    with pytest.raises(ConformanceFailure, match="§8 Limits") as info:
        money.wait_past(quote)
    assert time.monotonic() - before < EXPIRY_MARGIN_S
    assert quote["expiresAt"] in str(info.value)


def test_an_over_long_lifetime_the_interface_does_not_bound_skips() -> None:
    money = money_against(datetime.now(UTC), 3600.0)
    quote = stated_for(3600.0)
    with pytest.raises(pytest.skip.Exception, match="waits at most 15 minutes"):
        money.wait_past(quote, what="a challenge to expire", limit_clause=None)


def test_a_fifteen_minute_quote_is_awaited() -> None:
    """The longest lifetime §8 allows is awaited, not refused: here the Date header, already
    past it, ends the wait at once."""
    money = money_against(datetime.now(UTC) + timedelta(hours=1), 900.0)
    money.wait_past(money.quote({}))
