"""The checks every answer the client validates gets, in one registry with one signature.

Each check is a function ``check(answer, context)`` that returns nothing or raises a
:class:`ConformanceFailure`, registered with :func:`answer_check` from the module that owns
what it checks: decoding (``answer.py``), the endpoint's schema (``schema_check.py``), the
cross-check ledger (``ledger_answers.py``). They run in ``order``; the first failure ends
the answer's checks. The registry is where a failure learns which requirement it belongs to:
the check names the requirement of the answer it read (its ``charged_to``), which is not
always the requirement of the test that asked (a test that reads GET /config on the way).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from conformance.contract.failures import ConformanceFailure

if TYPE_CHECKING:  # the client runs the checks: it is read here, never built
    from conformance.exchange.answer import ApiResponse
    from conformance.exchange.client import TargetClient

__all__ = [
    "AnswerCheck",
    "CheckContext",
    "answer_check",
    "judges_the_body",
    "registered",
    "run_answer_checks",
]


@dataclass(frozen=True, slots=True)
class CheckContext:
    """What a check may read besides the answer: the client that got it, the credentials it
    was sent with (a ``Credentials``, a raw header or None) and when it was sent."""

    client: TargetClient
    credentials: object
    sent: float


Check = Callable[["ApiResponse", CheckContext], None]
Requirement = Callable[["ApiResponse"], str | None]


@dataclass(frozen=True, slots=True)
class AnswerCheck:
    """One registered check: its name, its place in the order, and the requirement a
    failure of it is charged to (for the answer it failed on)."""

    name: str
    order: int
    run: Check
    requirement: Requirement
    on_body: bool = True  # judges the body: its failure is held until the body is read

    def __call__(self, answer: ApiResponse, context: CheckContext) -> None:
        __tracebackhide__ = True
        try:
            self.run(answer, context)
        except ConformanceFailure as failure:
            if failure.charged_to is None:
                failure.charged_to = self.requirement(answer)
            failure.check = self.name
            raise


# filled once, at import, by the modules that own the checks: never changed during a run
_REGISTRY: dict[str, AnswerCheck] = {}


def answer_check(
    name: str, *, order: int, requirement: str | Requirement | None = None, on_body: bool = True
) -> Callable[[Check], Check]:
    """Register the decorated function as the answer check ``name``; ``requirement`` is
    the requirement a failure is charged to, or a function of the answer that names it;
    ``on_body`` says it judges the body (its failure is held until the test reads the body,
    ``held_checks.py``), not the status."""

    def charged(answer: ApiResponse) -> str | None:
        return requirement(answer) if callable(requirement) else requirement

    def register(function: Check) -> Check:
        if name in _REGISTRY:
            raise ValueError(f"an answer check named {name!r} is registered already")
        _REGISTRY[name] = AnswerCheck(name, order, function, charged, on_body)
        return function

    return register


def registered() -> list[AnswerCheck]:
    """The registered checks in the order they run."""
    return sorted(_REGISTRY.values(), key=lambda check: (check.order, check.name))


def judges_the_body(failure: ConformanceFailure) -> bool:
    """Whether ``failure`` came from a check of the answer's body (held until it is read)."""
    check = _REGISTRY.get(failure.check or "")
    return check is not None and check.on_body


def run_answer_checks(answer: ApiResponse, context: CheckContext) -> None:
    """Run every registered check on ``answer``; the first failure is raised."""
    __tracebackhide__ = True
    for check in registered():
        check(answer, context)
