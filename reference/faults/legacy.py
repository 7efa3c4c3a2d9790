"""TRANSITIONAL: fault modes still checked inline with ``settings.has_fault`` (being moved)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from reference.faults.registry import Fault

_LEGACY: dict[str, Fault] = {}


def legacy(
    name: str,
    *,
    breaks: str,
    clause: str,
    part: str,
    caught_by: tuple[str, ...],
    run_args: tuple[str, ...] = (),
) -> None:
    """Record a fault not yet moved to a registered function."""
    _LEGACY[name] = Fault(
        name, breaks, clause, part, caught_by, (), lambda value, **_: value, run_args
    )


def legacy_faults() -> Mapping[str, Fault]:
    """The faults not yet moved."""
    return MappingProxyType(_LEGACY)
