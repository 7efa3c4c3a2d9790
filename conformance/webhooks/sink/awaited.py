"""What a webhook wait awaits, stated by the wait: the words naming it, the event types it
is one of, and the requirement that says it is sent.

A wait that runs out fails charged to that requirement, with one steady sentence as its
cause (``webhooks/event_checks.py`` ``fail_wait``). The session's watched view
(``webhooks/delivery_health.py``) ends at once a later wait for the same thing (the same
words) when an earlier one ran out and none of it has arrived since: the later test is
charged to the same cause, so it fails only if it holds that requirement, and is blocked
otherwise (``reporting/causes.py``).

Waits with the same words must await the same thing and be charged alike: where the event
type alone does not tell which requirement a missing event breaks (``EXTERNAL_ACCOUNT.
STATUS_UPDATED`` after a successful or a failed ownership verification), the words name
the record too.
"""

from __future__ import annotations

from dataclasses import dataclass

from .store import Delivery

__all__ = ["Awaited"]


@dataclass(frozen=True, slots=True)
class Awaited:
    """One thing a webhook wait awaits.

    Attributes:
        what: steady words naming it, without ids ("OUTGOING_PAYMENT.REFUND_PENDING about
            a failed outgoing transaction"); waits with the same words await the same thing.
        requirement: the requirement stating that it is sent; a wait that runs out is
            charged to it.
        types: the event types it is one of (``PREFIX.*`` for a family); empty where the
            type is not shown (then only a late arrival of what an earlier wait awaited
            shows that it is sent).
        owners: other requirements a missing one breaks: a test holding one of them fails
            under it rather than being blocked.
    """

    what: str
    requirement: str
    types: frozenset[str] = frozenset()
    owners: tuple[str, ...] = ()

    @classmethod
    def event(
        cls, types: str | frozenset[str] | set[str], about: str, requirement: str,
        owners: tuple[str, ...] = (),
    ) -> Awaited:  # fmt: skip
        """An event of one of ``types`` about ``about`` (words naming the kind of record)."""
        kinds = frozenset((types,) if isinstance(types, str) else types)
        return cls(f"{' or '.join(sorted(kinds))} about {about}", requirement, kinds, owners)

    @property
    def cause(self) -> str:
        """The one sentence of a wait for it that ran out, the same in every test."""
        return f"{self.what} was not delivered"

    def sent(self, delivery: Delivery) -> bool:
        """Whether ``delivery`` is of one of the awaited types (about any record)."""
        kind = delivery.event_type or ""
        return any(
            kind.startswith(name[:-1]) if name.endswith(".*") else kind == name
            for name in self.types
        )
