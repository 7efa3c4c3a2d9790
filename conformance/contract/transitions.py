"""§3 States and transitions, once: each state machine's states and the steps its table shows.

Two readers build on these: the ledger's status rules (``stable_fields.py``: a later
statement of a resource shows a state reachable from the earlier one) and the webhook
sink's event ordering (``webhooks/sink/ordering.py``: events follow the same steps).
A state whose exits the interface does not fully show (``HOLD``, an account's ``FAILED``)
is left out of ``exits_shown``: where it may lead binds nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from conformance.contract import clauses

__all__ = [
    "EXTERNAL_ACCOUNT",
    "INTERNAL_ACCOUNT",
    "QUOTE",
    "REFUND",
    "REFUND_STARTS_AFTER",
    "TRANSACTION",
    "VERIFICATION",
    "Transitions",
]


@dataclass(frozen=True, slots=True)
class Transitions:
    """One machine of §3: its ``states``, the direct ``steps`` its table shows, and the
    states whose every exit it shows (the others may lead anywhere)."""

    clause: str
    states: tuple[str, ...]
    steps: tuple[tuple[str, str], ...]
    exits_shown: frozenset[str]

    def successors(self, state: str) -> tuple[str, ...]:
        """The states §3 allows directly after ``state``."""
        return tuple(after for before, after in self.steps if before == state)

    def reachable(self, state: str) -> frozenset[str]:
        """Every state a walk of one or more steps from ``state`` reaches."""
        found: set[str] = set()
        todo = list(self.successors(state))
        while todo:
            nxt = todo.pop()
            if nxt not in found:
                found.add(nxt)
                todo.extend(self.successors(nxt))
        return frozenset(found)

    def bound_exits(self) -> Mapping[str, frozenset[str]]:
        """For each state whose exits §3 shows, every state that may follow it."""
        return MappingProxyType(
            {s: self.reachable(s) for s in self.states if s in self.exits_shown}
        )


def _machine(clause: str, states: str, steps: str, exits_shown: str | None = None) -> Transitions:
    """A machine from space-separated ``states`` and ``A>B`` ``steps``; every state's exits
    are shown unless ``exits_shown`` names them."""
    names = tuple(states.split())
    pairs = tuple((a, b) for a, b in (step.split(">") for step in steps.split()))
    shown = frozenset(names if exits_shown is None else exits_shown.split())
    return Transitions(clause, names, pairs, shown)


# the transaction's status; a quote's execution leaves it PENDING, then PROCESSING
TRANSACTION = _machine(
    clauses.QUOTE_AND_TRANSACTION_STATES,
    "PENDING PROCESSING COMPLETED FAILED EXPIRED",
    "PENDING>PROCESSING PENDING>EXPIRED PROCESSING>COMPLETED PROCESSING>FAILED",
)
# the refund a FAILED transaction starts, automatically (§3: "refund pending, then
# completed or failed")
REFUND = _machine(
    clauses.QUOTE_AND_TRANSACTION_STATES,
    "PENDING COMPLETED FAILED",
    "PENDING>COMPLETED PENDING>FAILED",
)
REFUND_STARTS_AFTER = "FAILED"
# an EXPIRED quote is replaced by a new one; the status after the last authorization is not
# shown (a just-in-time quote may read PENDING again), and with it where any other state leads
QUOTE = _machine(
    clauses.QUOTE_AND_TRANSACTION_STATES,
    "PENDING PROCESSING COMPLETED PENDING_AUTHORIZATION EXPIRED",
    "",
    exits_shown="EXPIRED",
)
# APPROVED and REJECTED are final; into and out of HOLD is not shown, so nothing else binds
VERIFICATION = _machine(
    clauses.CUSTOMER_VERIFICATION_STATES,
    "UNVERIFIED PENDING APPROVED REJECTED HOLD",
    "PENDING>APPROVED PENDING>REJECTED",
    exits_shown="APPROVED REJECTED",
)
# no exit from CLOSED or FROZEN; FAILED "needs remediation", which leads somewhere not shown
INTERNAL_ACCOUNT = _machine(
    clauses.INTERNAL_ACCOUNT_STATES,
    "PENDING ACTIVE CLOSED FROZEN FAILED",
    "PENDING>ACTIVE PENDING>FAILED PENDING>CLOSED PENDING>FROZEN ACTIVE>CLOSED ACTIVE>FROZEN",
    exits_shown="PENDING ACTIVE CLOSED FROZEN",
)
# a failed attempt leaves UNVERIFIED; whether another attempt may follow is not shown
EXTERNAL_ACCOUNT = _machine(
    clauses.EXTERNAL_ACCOUNT_STATES,
    "ACTIVE PENDING_OWNERSHIP_VERIFICATION UNVERIFIED",
    "PENDING_OWNERSHIP_VERIFICATION>ACTIVE PENDING_OWNERSHIP_VERIFICATION>UNVERIFIED",
    exits_shown="PENDING_OWNERSHIP_VERIFICATION ACTIVE",
)
