"""The exchange floor's run state: what one session (one process of it) learns of its target
while it runs. The plugin makes one at configure, keeps it on the session's state
(``run/state.py``) and drops it at unconfigure; clients and sink views are handed it."""

from __future__ import annotations

from dataclasses import dataclass, field

from conformance.exchange.held_checks import HeldFailures
from conformance.exchange.ledger import Ledger
from conformance.exchange.rate_limit import Throttle
from conformance.exchange.target_health import TargetHealth
from conformance.exchange.waits import RanOut

__all__ = ["ExchangeState"]


@dataclass(slots=True)
class ExchangeState:
    """The target's health, the ``--rate-limit`` throttle, the cross-check ledger, the
    waits that ran out (not waited again), and the running phase's held body failures."""

    health: TargetHealth = field(default_factory=TargetHealth)
    throttle: Throttle = field(default_factory=Throttle)
    ledger: Ledger = field(default_factory=Ledger)
    ran_out: RanOut = field(default_factory=RanOut)
    held: HeldFailures = field(default_factory=HeldFailures)

    def reset(self) -> None:
        """Forget what was learnt (the session starts comparing what its target says now)."""
        self.health.reset()
        self.ledger.clear()
