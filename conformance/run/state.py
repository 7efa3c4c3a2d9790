"""The per-process state of a conformance session, kept in ``config.stash``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest

from conformance.exchange.client import ExchangeLog
from conformance.exchange.run_state import ExchangeState
from conformance.ground.profile import TargetProfile
from conformance.webhooks.delivery_health import DeliveryHealth

if TYPE_CHECKING:  # these modules build sessions: they import this one
    from conformance.run.embedded import EmbeddedSandbox
    from conformance.run.webhook_sink import LaneSink

__all__ = ["STATE_KEY", "SessionState", "session_state"]


@dataclass
class SessionState:
    """What the plugin knows in this process: the profile, the sink, the evidence log, and
    the run state its clients and sink views are handed (the target's health, the throttle,
    the ledger; the webhook waits' streaks). Made at configure, gone at unconfigure."""

    profile: TargetProfile
    log: ExchangeLog = field(default_factory=ExchangeLog)
    exchange: ExchangeState = field(default_factory=ExchangeState)
    delivery: DeliveryHealth = field(default_factory=DeliveryHealth)
    sink: LaneSink | None = None  # this lane's webhook sink, once started
    embedded: EmbeddedSandbox | None = None
    # embedded runs under xdist: a session per further sandbox, each with its own sink
    # (``embedded.sandbox_count``); this session is the first
    other_lanes: list[SessionState] = field(default_factory=list)
    # in an xdist worker: every lane's sink, its control URL and the webhook key of its
    # target, this lane's included (what reads the whole run's deliveries reads them all)
    worker_run_sinks: list[tuple[str, str | None]] | None = None

    def lanes(self) -> list[SessionState]:
        """This session, then one per further embedded sandbox."""
        return [self, *self.other_lanes]

    def run_sinks(self) -> list[tuple[str, str | None]]:
        """Every lane's sink that runs, as (control URL, the webhook public key of its
        target): in the controller from its lanes, in a worker as the controller said."""
        if self.worker_run_sinks is not None:
            return list(self.worker_run_sinks)
        return [
            (lane.sink.control_url, lane.profile.webhook_public_key)
            for lane in self.lanes()
            if lane.sink is not None and lane.sink.control_url is not None
        ]

    def lane_for(self, worker_id: str) -> SessionState:
        """The session xdist worker ``gwN`` joins: lane ``N mod`` the number of lanes."""
        lanes = self.lanes()
        digits = worker_id.removeprefix("gw")
        return lanes[int(digits) % len(lanes)] if digits.isdigit() else self

    def worker_input(self) -> dict[str, Any]:
        """What an xdist worker needs to join the session (in memory only)."""
        return {
            "profile": self.profile.to_dict(),
            "sink": None if self.sink is None else self.sink.worker_view(),
        }

    @classmethod
    def from_worker_input(cls, data: dict[str, Any]) -> SessionState:
        from conformance.run.webhook_sink import LaneSink  # it imports this module

        view = data["sink"]
        return cls(
            profile=TargetProfile.from_dict(data["profile"]),
            sink=None if view is None else LaneSink.from_worker_view(view),
            worker_run_sinks=[(url, key) for url, key in data.get("run_sinks", [])],
        )


STATE_KEY = pytest.StashKey[SessionState]()


def session_state(config: pytest.Config) -> SessionState:
    """This process's session; skips the asking test when the run has no conformance target
    (a project test that asks for a suite fixture)."""
    state = config.stash.get(STATE_KEY, None)
    if state is None:
        pytest.skip("the conformance target is not configured in this run")
    return state
