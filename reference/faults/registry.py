"""The fault registry: each fault mode is one registered function with what it breaks.

A fault breaks exactly one stated behaviour of the interface. It is a function attached at
one or more seams (``reference.kernel.seams``): it receives the value the sandbox computed
there (and the seam's context) and returns the broken value. Its registration holds what
it breaks, the clause, and the suite part and tests that must catch it, which the
project's self-tests read (``tests/conformance_runs/test_fault_modes.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, TypeVar

from reference.kernel.seams import Alteration, Seam

F = TypeVar("F", bound=Callable[..., Any])

PARTS = frozenset(
    {"resources", "transitions", "endpoints", "auth", "webhooks", "errors", "limits", "versioning"}
)


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault mode of the reference sandbox."""

    name: str
    breaks: str
    clause: str
    part: str
    caught_by: tuple[str, ...]
    seams: tuple[Seam, ...]
    alteration: Alteration
    run_args: tuple[str, ...] = ()
    # the run's preflight notices it first and ends the run as could not run (exit 3): a
    # fault the suite cannot tell from a broken environment (deliveries that never arrive)
    stops_at_preflight: bool = False
    # ``alteration`` builds the alteration, afresh for each server: a fault that keeps count
    per_server: bool = False

    def attached(self) -> Alteration:
        """The alteration a server attaches at the fault's seams."""
        return self.alteration() if self.per_server else self.alteration

    @property
    def description(self) -> str:
        """One line: what the sandbox does wrong, then the clause it breaks."""
        return f"{self.breaks} ({self.clause})"


_REGISTERED: dict[str, Fault] = {}


def fault(
    name: str,
    *,
    at: Seam | Iterable[Seam],
    clause: str,
    part: str,
    caught_by: Iterable[str],
    run_args: Iterable[str] = (),
    stops_at_preflight: bool = False,
    per_server: bool = False,
) -> Callable[[F], F]:
    """Register the decorated function as fault mode ``name``, attached at the seam(s) ``at``.

    The function's docstring says, in one line, what the sandbox does wrong; ``clause`` is
    the statement it breaks (``"§2 PlatformConfig: integer"``); ``part`` and ``caught_by``
    name the suite part and the tests that must fail against it; ``run_args`` are extra
    ``conformance run`` arguments its proof needs (a platform mode); ``stops_at_preflight``
    says that the run's preflight notices it first (exit 3), before the tests named;
    ``per_server``: the function takes no argument and returns the alteration, built once for
    each server that attaches it (what it counts starts afresh with the server, and no
    module holds it).
    """
    seams = (at,) if isinstance(at, Seam) else tuple(at)

    def register(alteration: F) -> F:
        doc = (alteration.__doc__ or "").strip()
        if name in _REGISTERED:
            raise ValueError(f"fault {name!r} is registered twice")
        if not doc or not seams or part not in PARTS or not tuple(caught_by):
            raise ValueError(f"fault {name!r} needs a docstring, a seam, a part and its tests")
        _REGISTERED[name] = Fault(
            name=name,
            breaks=" ".join(doc.split()),
            clause=clause,
            part=part,
            caught_by=tuple(caught_by),
            seams=seams,
            alteration=alteration,
            run_args=tuple(run_args),
            stops_at_preflight=stops_at_preflight,
            per_server=per_server,
        )
        return alteration

    return register


def registered_faults() -> Mapping[str, Fault]:
    """Every fault registered by the modules imported so far, by name."""
    return MappingProxyType(_REGISTERED)
