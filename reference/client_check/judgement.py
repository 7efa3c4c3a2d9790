"""The judgement of one request while it is served: the rules that looked at it, what they
found, and advisories. The middleware opens it; the observers at the areas' seams add to it
from wherever the request's work runs (the thread pool copies the context, and the
judgement is one shared object)."""

from __future__ import annotations

import contextvars
from dataclasses import dataclass, field

from reference.client_check.rules import Rule


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the client did that the interface does not allow."""

    rule: Rule
    message: str
    clause: str  # the rule's, or the narrower heading the check names (§4 Accounts)


@dataclass(slots=True)
class Judgement:
    """What the rules made of one request."""

    checked: set[str] = field(default_factory=set)
    findings: list[Finding] = field(default_factory=list)
    advisories: list[Finding] = field(default_factory=list)

    def checks(self, rule: Rule) -> None:
        """``rule`` looked at this request (a rule that never looks is reported as skipped)."""
        self.checked.add(rule.id)

    def finds(self, rule: Rule, message: str, clause: str | None = None) -> None:
        """``rule`` looked and found ``message``, which starts with its clause."""
        self.checks(rule)
        self.findings.append(Finding(rule, message, clause or rule.clause))

    def advises(self, rule: Rule, message: str) -> None:
        """Something the interface recommends but does not require: never a finding."""
        self.checks(rule)
        self.advisories.append(Finding(rule, message, rule.clause))


_CURRENT: contextvars.ContextVar[Judgement | None] = contextvars.ContextVar(
    "client_check_judgement", default=None
)


def begin() -> tuple[Judgement, contextvars.Token[Judgement | None]]:
    """A fresh judgement, current for this request until ``end``."""
    judgement = Judgement()
    return judgement, _CURRENT.set(judgement)


def end(token: contextvars.Token[Judgement | None]) -> None:
    """The request is served: its judgement is no longer current."""
    _CURRENT.reset(token)


def current() -> Judgement | None:
    """The judgement of the request being served, or None outside one (the settler thread,
    the webhook worker)."""
    return _CURRENT.get()
