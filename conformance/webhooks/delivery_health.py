"""Webhook waits that time out with nothing delivered: the run stops early when they add up.

A target that does not deliver its events (or a network that does not carry them to the
sink) made every webhook wait of a run pay its whole ``--webhook-timeout``: a run held for
13 minutes, each wait a clause failure blamed on the target. Each process counts the waits
in a row that timed out while not one authentic delivery (its signature verifies with the
profile's key; any delivery when there is no key) reached the sink, from the first of those
waits to the last. After ``WAITS_IN_A_ROW`` of them:

- in the sandbox, the run asks the target for its TEST event (``run/webhook_sink.py``'s probe). If
  an authentic one arrives, deliveries do reach the sink: the waits are the target's own
  failures (events it does not send, or a profile setting that expects other events), and
  the run goes on;
- if it does not (or in production, where none can be asked for), the run cannot test
  webhooks: the target is taken as not testable (the session's ``TargetHealth.stop``), the
  plugin stops the run with the could-not-run verdict, and its reason names each wait that
  timed out.

A wait that is satisfied, or ruled out by a delivery, ends the streak; so does any authentic
delivery between two waits (a target that delivers some events but not the awaited ones
fails the tests that await them, as it should). Waits shorter than ``MIN_COUNTED_WAIT_S``
(what was left of a deadline) prove nothing and do not count.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from conformance.exchange.target_health import TargetHealth
from conformance.webhooks.sink import Delivery, SinkRuledOut, SinkTimeout, SinkView

__all__ = [
    "MIN_COUNTED_WAIT_S",
    "WAITS_IN_A_ROW",
    "DeliveryHealth",
    "TimedOutWait",
    "WaitNotMade",
    "WatchedSinkView",
]

WAITS_IN_A_ROW = 3
MIN_COUNTED_WAIT_S = 0.5


@dataclass(frozen=True, slots=True)
class TimedOutWait:
    """One webhook wait that timed out with nothing authentic delivered."""

    description: str
    timeout: float
    test: str | None

    def text(self) -> str:
        where = f" in {self.test}" if self.test else ""
        return f"{self.description} ({self.timeout:g} s){where}"


class WaitNotMade(SinkTimeout):
    """A wait not made because the run is stopping (the target cannot be tested)."""

    def __init__(self, description: str, reason: str) -> None:
        self.reason = reason
        super().__init__(description, 0.0, ())

    def _message(self) -> str:
        return (
            f"webhook sink: {self.description} was not awaited: the run is stopping ({self.reason})"
        )


class DeliveryHealth:
    """Counts webhook waits in a row that timed out with nothing authentic delivered."""

    def __init__(self, limit: int = WAITS_IN_A_ROW) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._streak: list[TimedOutWait] = []
        self.streak_from = 0  # the sink's newest seq when the streak's first wait began
        self._unsent: set[str] = set()  # event types awaited in vain, none ever delivered

    def delivered(self) -> None:
        """A wait was satisfied or ruled out, or a TEST event arrived: deliveries arrive."""
        with self._lock:
            self._streak.clear()

    def timed_out(
        self, wait: TimedOutWait, began: int, authentic_since: Callable[[int], bool]
    ) -> tuple[TimedOutWait, ...] | None:
        """Record a wait that timed out; it began when the sink's newest seq was ``began``.

        ``authentic_since(seq)`` says whether an authentic delivery newer than ``seq``
        arrived. Returns the streak's waits once it is long enough to stop the run.
        """
        with self._lock:
            if self._streak and authentic_since(self.streak_from):
                self._streak.clear()  # something authentic arrived since the streak began
            if not self._streak:
                if authentic_since(began):
                    return None
                self.streak_from = began
            self._streak.append(wait)
            return tuple(self._streak) if len(self._streak) >= self.limit else None

    def ran_out_of(self, types: Collection[str], delivered: Collection[str]) -> None:
        """A wait for one of ``types`` ran out; ``delivered`` are the types that arrived
        so far. When none of ``types`` ever did, the target is taken not to send them."""
        if types and not set(types) & set(delivered):
            with self._lock:
                self._unsent.update(types)

    def never_sent(self, types: Collection[str], delivered: Collection[str]) -> bool:
        """Whether a wait for ``types`` can end at once: an earlier wait for each of them ran
        out, and not one of them has arrived since (one that arrives ends this)."""
        with self._lock:
            return bool(types) and set(types) <= self._unsent and not set(types) & set(delivered)


def _current_test() -> str | None:
    """The test that is running (pytest sets ``PYTEST_CURRENT_TEST``), without its phase."""
    current = os.environ.get("PYTEST_CURRENT_TEST")
    return current.rsplit(" (", 1)[0] if current else None


class WatchedSinkView(SinkView):
    """A :class:`SinkView` whose waits feed the session's :class:`DeliveryHealth`.

    Args:
        sink_url: the URL the target delivers to, for the stop's message.
        remedies: what to check when deliveries do not reach the sink (a sentence).
        probe: asks the target for a TEST event and says why no authentic one arrived (None
            when one did); None where none can be asked for (production).
        streaks: the session's counter of timed-out waits.
        health: the session's target health (a stop is recorded there).
    """

    def __init__(
        self,
        control_url: str,
        public_key: Any = None,
        *,
        sink_url: str,
        remedies: str,
        probe: Callable[[], str | None] | None = None,
        streaks: DeliveryHealth,
        health: TargetHealth,
        **kwargs: Any,
    ) -> None:
        super().__init__(control_url, public_key, **kwargs)
        self.sink_url = sink_url
        self.remedies = remedies
        self.probe = probe
        self.streaks = streaks
        self.target_health = health

    def wait_for_all(
        self,
        predicate: Callable[[Delivery], bool],
        count: int,
        *,
        timeout: float,
        description: str,
        after: int = 0,
        rules_out: Callable[[Delivery], bool] | None = None,
        set_aside_too: bool = False,
        types: Collection[str] = (),
    ) -> list[Delivery]:
        """:meth:`SinkView.wait_for_all`, counted; not made once the run is stopping; ended
        at once for ``types`` an earlier wait ran out for and none of which ever arrived
        (a target that never sends them: each test would wait out its own deadline)."""
        if self.target_health.down is not None:
            raise WaitNotMade(description, self.target_health.down)
        if self.streaks.never_sent(types, self._delivered_types()):
            raise SinkTimeout(
                f"{description} (not waited for again: an earlier wait for "
                f"{' or '.join(sorted(types))} ran out, and none has arrived in this run)",
                0.0,
                self.deliveries(),
            )
        began = self.mark()
        try:
            found = super().wait_for_all(
                predicate, count, timeout=timeout, description=description, after=after,
                rules_out=rules_out, set_aside_too=set_aside_too,
            )  # fmt: skip
        except SinkRuledOut:
            self.streaks.delivered()
            raise
        except SinkTimeout:
            if timeout >= MIN_COUNTED_WAIT_S:
                self.streaks.ran_out_of(types, self._delivered_types())
                self._count_timeout(TimedOutWait(description, timeout, _current_test()), began)
            raise
        self.streaks.delivered()
        return found

    def _count_timeout(self, wait: TimedOutWait, began: int) -> None:
        streak = self.streaks.timed_out(wait, began, self._authentic_since)
        if streak is None:
            return
        if self.probe is None:
            probed = (
                "No TEST event can be asked for in production to tell a broken delivery path "
                "from events the target does not send."
            )
        else:
            why = self.probe()
            if why is None:  # deliveries reach the sink: the waits were the target's own
                self.streaks.delivered()
                return
            probed = f"Asked for a TEST event then: {why}."
        self.target_health.stop(self._stop_reason(streak, probed))

    def _stop_reason(self, streak: tuple[TimedOutWait, ...], probed: str) -> str:
        waits = "; ".join(f"{n}. {w.text()}" for n, w in enumerate(streak, 1))
        forged = len(self.set_aside(after=self.streaks.streak_from))
        head = (
            f"webhooks do not arrive: {len(streak)} webhook waits in a row timed out with not "
            f"one authentic delivery reaching the sink at {self.sink_url} (waits: {waits})."
            f" {probed}"
        )
        if forged:  # deliveries do reach the sink: the key, or the target's signing, is wrong
            return (
                f"{head} {forged} deliveries did arrive whose X-Service-Signature does not "
                "verify with --webhook-public-key: check that it is the target's key; if it is, "
                "the target's signatures break §5 (the webhooks part then reports them)."
            )
        return (
            f"{head} The target does not deliver its events, or cannot reach the sink. "
            f"{self.remedies}"
        )

    def _delivered_types(self) -> set[str]:
        return {d.event_type for d in self.deliveries() if d.event_type}

    def _authentic_since(self, seq: int) -> bool:
        # the view's deliveries are the authentic ones (every one without a key)
        return any(d.seq > seq for d in self.deliveries())
