"""Conformance failures: an AssertionError that names the clause, the observation and a fix.

Messages follow one pattern so reports read alike:
``§4 Platform configuration: PATCH /config must echo umaDomain; expected 'a.example', got 'b'``
followed by an optional hint and the curl line that reproduces the failing request.
"""

from __future__ import annotations

from typing import Any, NoReturn, Protocol

__all__ = ["ConformanceFailure", "Exchange", "check", "fail", "shorten"]


class Exchange(Protocol):
    """What a failure needs of the request and answer it observed (``exchange.evidence``'s
    record has it): the contract floor names the shape, the exchange floor fills it."""

    @property
    def curl(self) -> str: ...

    def summary(self) -> str: ...


_MISSING: Any = object()


def shorten(value: object, limit: int = 300) -> str:
    """A repr of ``value`` cut to ``limit`` characters for failure messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class ConformanceFailure(AssertionError):
    """A violation of something the interface states."""

    def __init__(
        self,
        clause: str,
        statement: str,
        *,
        expected: object = _MISSING,
        observed: object = _MISSING,
        hint: str | None = None,
        exchange: Exchange | None = None,
        requirement: str | None = None,
    ) -> None:
        self.clause = clause
        self.statement = statement
        self.expected = None if expected is _MISSING else expected
        self.observed = None if observed is _MISSING else observed
        self.hint = hint
        self.exchange = exchange
        # the one requirement this assertion checks: a test carrying several fails only that
        # one (``reporting/causes.py`` ``charge``); None fails every requirement of the test
        self.requirement = requirement
        # the requirement of the answer the failure was met on, when a check of every answer
        # (``exchange/answer_checks.py``) found it, and that check's name
        self.charged_to: str | None = None
        # other requirements the same defect belongs to: a test holding one fails on its own
        self.owners: tuple[str, ...] = ()
        self.check: str | None = None
        self.cause: str | None = None  # one sentence, the same for every test that meets it
        message = f"{clause}: {statement}"
        if expected is not _MISSING:
            message += f"; expected {shorten(expected)}"
        if observed is not _MISSING:
            message += f"; got {shorten(observed)}"
        if hint:
            message += f"\n  hint: {hint}"
        if exchange is not None:
            message += f"\n  exchange: {exchange.summary()}\n  reproduce: {exchange.curl}"
        super().__init__(message)


def fail(
    clause: str,
    statement: str,
    *,
    expected: object = _MISSING,
    observed: object = _MISSING,
    hint: str | None = None,
    exchange: Exchange | None = None,
    requirement: str | None = None,
) -> NoReturn:
    """Fail the current test for a violation of ``clause`` (of ``requirement``, when the
    assertion checks one of the test's requirements and not the others)."""
    __tracebackhide__ = True
    raise ConformanceFailure(
        clause,
        statement,
        expected=expected,
        observed=observed,
        hint=hint,
        exchange=exchange,
        requirement=requirement,
    )


def check(
    condition: object,
    clause: str,
    statement: str,
    *,
    expected: object = _MISSING,
    observed: object = _MISSING,
    hint: str | None = None,
    exchange: Exchange | None = None,
    requirement: str | None = None,
) -> None:
    """Fail with the given clause (and ``requirement``, see ``fail``) unless ``condition``
    holds."""
    __tracebackhide__ = True
    if not condition:
        fail(
            clause,
            statement,
            expected=expected,
            observed=observed,
            hint=hint,
            exchange=exchange,
            requirement=requirement,
        )
