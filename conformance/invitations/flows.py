"""UMA invitations as the suite reaches them (§2 Other records: statuses ``PENDING`` and
``CLAIMED``, the invitee UMA address associated on claim; §3 Invitation; §6 invitation
claimed). Invitation paths, bodies and the claimed event's type and payload are not shown:
the adapter hooks create and claim an invitation and answer its record, which is the only
view of it the suite has. Its fields other than ``status`` are not shown, so the invitee
UMA address is looked for in any field; the claimed event is found as any event delivered
after the claim that mentions the invitation's id.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from conformance.contract import clauses
from conformance.exchange.assertions import adapter_record
from conformance.ground import hookspecs

__all__ = ["CLAIM_HOOK", "CREATE_HOOK", "INVITATION_CLAUSE", "Invitations", "uma_addresses"]

CREATE_HOOK = hookspecs.pytest_conformance_create_invitation
CLAIM_HOOK = hookspecs.pytest_conformance_claim_invitation
INVITATION_CLAUSE = clauses.INVITATION_STATES
RECORD_CLAUSE = clauses.OTHER_RECORDS + " (Invitation)"
_UMA = re.compile(r"^\$[^\s@$]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$")

Call = Callable[..., Any]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def uma_addresses(record: Any) -> list[str]:
    """Every value in the record shaped as a UMA address ``$user@domain``."""
    return [s for s in _strings(record) if _UMA.match(s)]


class Invitations:
    """Invitations through the adapter's hooks; every answer is checked before use."""

    def __init__(self, call: Call) -> None:
        self._call = call

    def _record(self, answer: Any, hook: hookspecs.HookSpec, what: str) -> dict[str, Any]:
        __tracebackhide__ = True
        return adapter_record(answer, hook, RECORD_CLAUSE, f"{what} (an invitation)")

    def create(self, inviter_customer_id: str) -> dict[str, Any]:
        __tracebackhide__ = True
        answer = self._call(CREATE_HOOK, inviter_customer_id=inviter_customer_id)
        return self._record(answer, CREATE_HOOK, "a new invitation")

    def claim(self, invitation: dict[str, Any], customer_id: str) -> dict[str, Any]:
        __tracebackhide__ = True
        answer = self._call(CLAIM_HOOK, invitation=invitation, customer_id=customer_id)
        return self._record(answer, CLAIM_HOOK, "a claimed invitation")
