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

A wait that states what it awaits (:class:`~conformance.webhooks.sink.Awaited`) and runs out
while nothing of it ever arrived (no authentic delivery of its types, none it would have
matched set aside as forged) takes the target not to send it: a later wait for the same
thing ends at once with :class:`NotAwaitedAgain`, carrying the earlier wait's failure
(recorded in the session's ``RanOut`` by ``event_checks.fail_wait``), charged to the same
requirement; one arrival of it ends this. Each process keeps its own record: under
pytest-xdist a worker learns only from its own waits (each worker's first wait for a thing
never sent waits out its deadline).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from conformance.contract.failures import ConformanceFailure
from conformance.exchange.target_health import TargetHealth
from conformance.exchange.waits import RanOut
from conformance.webhooks.sink import Awaited, Delivery, SinkRuledOut, SinkTimeout, SinkView

__all__ = [
    "MIN_COUNTED_WAIT_S",
    "WAITS_IN_A_ROW",
    "DeliveryHealth",
    "NotAwaitedAgain",
    "TimedOutWait",
    "WaitNotMade",
    "WatchedSinkView",
]

WAITS_IN_A_ROW = 3
MIN_COUNTED_WAIT_S = 0.5


@dataclass(frozen=True, slots=True)
class TimedOutWait:
    """One webhook wait that timed out with nothing authentic delivered (or was not made
    again: an earlier wait for the same thing ran out, and nothing of it came since)."""

    description: str
    timeout: float
    test: str | None
    again: bool = False

    def text(self) -> str:
        where = f" in {self.test}" if self.test else ""
        waited = "not waited again" if self.again else f"{self.timeout:g} s"
        return f"{self.description} ({waited}){where}"


class WaitNotMade(SinkTimeout):
    """A wait not made because the run is stopping (the target cannot be tested)."""

    def __init__(self, description: str, reason: str) -> None:
        self.reason = reason
        super().__init__(description, 0.0, ())

    def _message(self) -> str:
        return (
            f"webhook sink: {self.description} was not awaited: the run is stopping ({self.reason})"
        )


class NotAwaitedAgain(SinkTimeout):
    """A wait not made: an earlier wait for the same thing ran out and none of it has arrived
    since. ``again`` is the earlier wait's failure, to be raised in this one's place."""

    def __init__(
        self, description: str, again: ConformanceFailure, arrived: Sequence[Delivery]
    ) -> None:
        self.again = again
        super().__init__(description, 0.0, arrived)

    def _message(self) -> str:
        return (
            f"webhook sink: {self.description} was not awaited: an earlier wait for it ran "
            "out, and none has arrived in this run"
        )


class DeliveryHealth:
    """Counts webhook waits in a row that timed out with nothing authentic delivered."""

    def __init__(self, limit: int = WAITS_IN_A_ROW) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._streak: list[TimedOutWait] = []
        self.streak_from = 0  # the sink's newest seq when the streak's first wait began
        # what waits awaited in vain, none ever delivered -> each such wait's own predicate
        self._unsent: dict[str, list[Callable[[Delivery], bool]]] = {}

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

    def ran_out_of(
        self,
        awaited: Awaited,
        waited_for: Callable[[Delivery], bool],
        arrived: Sequence[Delivery],
    ) -> bool:
        """A wait for ``awaited`` ran out (``waited_for``: what it matched); ``arrived`` are
        the authentic deliveries so far. When none of them is of the awaited types, the
        target is taken not to send it: True (a later wait for it can end at once)."""
        if any(awaited.sent(d) for d in arrived):
            return False
        with self._lock:
            self._unsent.setdefault(awaited.what, []).append(waited_for)
        return True

    def never_sent(self, awaited: Awaited, arrived: Sequence[Delivery]) -> bool:
        """Whether a wait for ``awaited`` can end at once: an earlier wait for it ran out, and
        nothing of it has arrived since (one of its types, or what an earlier wait for it
        would have matched: a late delivery ends this)."""
        with self._lock:
            waits = tuple(self._unsent.get(awaited.what, ()))
        return bool(waits) and not any(awaited.sent(d) or any(w(d) for w in waits) for d in arrived)


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
        ran_out: the session's waits that ran out (``ExchangeState.ran_out``): the failures
            a later wait for the same thing ends with.
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
        ran_out: RanOut | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(control_url, public_key, **kwargs)
        self.sink_url = sink_url
        self.remedies = remedies
        self.probe = probe
        self.streaks = streaks
        self.target_health = health
        self.ran_out = ran_out if ran_out is not None else RanOut()

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
        awaited: Awaited | None = None,
    ) -> list[Delivery]:
        """:meth:`SinkView.wait_for_all`, counted; not made once the run is stopping; ended
        at once (:class:`NotAwaitedAgain`) when an earlier wait for what it ``awaited`` ran
        out and none of it ever arrived (a target that never sends it: each test would wait
        out its own deadline)."""
        if self.target_health.down is not None:
            raise WaitNotMade(description, self.target_health.down)
        if awaited is not None:
            again = self._known_unsent(awaited)
            if again is not None:
                # still a wait with nothing delivered: a run where nothing arrives at all
                # must reach its streak (and the TEST-event probe) as before
                wait = TimedOutWait(description, timeout, _current_test(), again=True)
                self._count_timeout(wait, self.mark())
                raise NotAwaitedAgain(description, again, self.deliveries())
        began = self.mark()
        try:
            found = super().wait_for_all(
                predicate, count, timeout=timeout, description=description, after=after,
                rules_out=rules_out, set_aside_too=set_aside_too, awaited=awaited,
            )  # fmt: skip
        except SinkRuledOut:
            self.streaks.delivered()
            raise
        except SinkTimeout as ran_out:
            if timeout >= MIN_COUNTED_WAIT_S:
                if (
                    awaited is not None
                    and not ran_out.matching_set_aside  # it was sent, signed wrongly
                    and self.streaks.ran_out_of(awaited, predicate, self.deliveries())
                ):
                    ran_out.ran_out = self.ran_out  # fail_wait records the failure there
                self._count_timeout(TimedOutWait(description, timeout, _current_test()), began)
            raise
        self.streaks.delivered()
        return found

    def _known_unsent(self, awaited: Awaited) -> ConformanceFailure | None:
        """The failure a wait for ``awaited`` ends with at once, if it can (an earlier one
        ran out, failed, and nothing of it has arrived since)."""
        if not self.streaks.never_sent(awaited, self.deliveries()):
            return None
        return self.ran_out.known(awaited.what)

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

    def _authentic_since(self, seq: int) -> bool:
        # the view's deliveries are the authentic ones (every one without a key)
        return any(d.seq > seq for d in self.deliveries())
