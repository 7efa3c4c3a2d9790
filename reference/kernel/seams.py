"""Seams: named points where a value the sandbox computed may be altered at start-up.

The domain code declares a seam beside the value it guards (``RENDERED = seam("config.rendered",
"the PlatformConfig body about to be answered")``) and passes the value through it
(``body = settings.seams.apply(RENDERED, body, platform_id=...)``). It never knows why a
seam would be altered: the fault modes of the reference (``reference/faults/``) attach their
alterations through the composition root (``reference/server/cli.py``), and no domain module
imports them. With nothing attached, ``apply`` returns the value unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar, cast

T = TypeVar("T")

Alteration = Callable[..., Any]


@dataclass(frozen=True, slots=True)
class Seam:
    """One declared seam: its dotted name and what value flows through it."""

    name: str
    holds: str


_DECLARED: dict[str, Seam] = {}


def seam(name: str, holds: str) -> Seam:
    """Declare a seam, once, at module level beside the code that passes values through it."""
    if name in _DECLARED:
        raise ValueError(f"seam {name!r} is declared twice")
    declared_seam = Seam(name, holds)
    _DECLARED[name] = declared_seam
    return declared_seam


@dataclass(frozen=True, slots=True)
class Seams:
    """The alterations attached to seams for the life of this process; none by default."""

    attached: Mapping[Seam, tuple[Alteration, ...]] = field(default_factory=dict)

    @classmethod
    def attaching(cls, pairs: Iterable[tuple[Seam, Alteration]]) -> Seams:
        """Seams with each alteration attached at its seam, in the order given."""
        attached: dict[Seam, tuple[Alteration, ...]] = {}
        for at, alteration in pairs:
            if _DECLARED.get(at.name) is not at:
                raise ValueError(f"seam {at.name!r} was never declared")
            attached[at] = (*attached.get(at, ()), alteration)
        return cls(MappingProxyType(attached))

    def apply(self, at: Seam, value: T, /, **context: Any) -> T:
        """``value`` after every alteration attached at ``at`` (each sees ``context``)."""
        for alteration in self.attached.get(at, ()):
            value = cast(T, alteration(value, **context))
        return value
