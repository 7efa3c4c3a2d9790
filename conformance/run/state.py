"""The per-process state of a conformance session, kept in ``config.stash``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest

from conformance.exchange.client import ExchangeLog
from conformance.ground.profile import TargetProfile

if TYPE_CHECKING:  # the embedded module builds sessions: it imports this one
    from conformance.run.embedded import EmbeddedSandbox

__all__ = ["STATE_KEY", "SessionState", "session_state"]


@dataclass
class SessionState:
    """What the plugin knows in this process: the profile, the sink, the evidence log."""

    profile: TargetProfile
    log: ExchangeLog = field(default_factory=ExchangeLog)
    sink_url: str | None = None
    sink_control_url: str | None = None
    sink_error: str | None = None
    embedded: EmbeddedSandbox | None = None
    # controller-only resources, stopped at unconfigure
    sink_server: Any = None
    registration: Any = None
    # embedded runs under xdist: a session per further sandbox, each with its own sink
    # (``embedded.sandbox_count``); this session is the first
    other_lanes: list[SessionState] = field(default_factory=list)

    def lanes(self) -> list[SessionState]:
        """This session, then one per further embedded sandbox."""
        return [self, *self.other_lanes]

    def lane_for(self, worker_id: str) -> SessionState:
        """The session xdist worker ``gwN`` joins: lane ``N mod`` the number of lanes."""
        lanes = self.lanes()
        digits = worker_id.removeprefix("gw")
        return lanes[int(digits) % len(lanes)] if digits.isdigit() else self

    def worker_input(self) -> dict[str, Any]:
        """What an xdist worker needs to join the session (in memory only)."""
        return {
            "profile": self.profile.to_dict(),
            "sink_url": self.sink_url,
            "sink_control_url": self.sink_control_url,
            "sink_error": self.sink_error,
        }

    @classmethod
    def from_worker_input(cls, data: dict[str, Any]) -> SessionState:
        return cls(
            profile=TargetProfile.from_dict(data["profile"]),
            sink_url=data["sink_url"],
            sink_control_url=data["sink_control_url"],
            sink_error=data["sink_error"],
        )


STATE_KEY = pytest.StashKey[SessionState]()


def session_state(config: pytest.Config) -> SessionState:
    """This process's session; skips the asking test when the run has no conformance target
    (a project test that asks for a suite fixture)."""
    state = config.stash.get(STATE_KEY, None)
    if state is None:
        pytest.skip("the conformance target is not configured in this run")
    return state
