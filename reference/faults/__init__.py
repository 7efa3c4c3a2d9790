"""Fault modes: start-up switches that each break exactly one stated behaviour.

The project's self-tests start the sandbox with a fault and check that the conformance
suite notices. Each fault is one registered function (``registry.fault``) in the module of
its area, attached at a seam the domain code declares (``reference.kernel.seams``); the
domain code never imports this package. Only the composition root
(``reference/server/cli.py``) does, to turn the ``--fault`` names into attached seams.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from reference.faults import (  # noqa: F401  (importing an area module registers its faults)
    accounts,
    agents,
    cards,
    configuration,
    customers,
    invitations,
    kernel,
    payment_records,
    payments,
    sca,
    wallet,
    webhooks,
)
from reference.faults.registry import Fault, registered_faults
from reference.kernel.seams import Alteration, Seam, Seams

FAULTS: Mapping[str, Fault] = MappingProxyType(dict(sorted(registered_faults().items())))


class UnknownFaultError(ValueError):
    """A requested fault mode is not in the catalogue."""


def validate_faults(names: Iterable[str]) -> frozenset[str]:
    """Return the requested fault names as a set, or raise for the first unknown one.

    The message names the bad value and suggests the closest known name, so a typo on the
    command line is a one-line fix.
    """
    requested = frozenset(names)
    for name in sorted(requested):
        if name not in FAULTS:
            close = difflib.get_close_matches(name, FAULTS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise UnknownFaultError(
                f"unknown fault mode {name!r}{hint} (use --list-faults to see all)"
            )
    return requested


def describe_faults() -> str:
    """The catalogue as aligned text lines, one fault per line."""
    width = max(len(name) for name in FAULTS)
    return "\n".join(f"{name:<{width}}  {item.description}" for name, item in FAULTS.items())


def seams_for(names: Iterable[str]) -> Seams:
    """The seams of a sandbox running with the fault modes ``names`` (validated first)."""
    chosen = validate_faults(names)
    pairs: list[tuple[Seam, Alteration]] = []
    for name in sorted(chosen):
        alteration = FAULTS[name].attached()  # one per server, the same at each of its seams
        pairs.extend((at, alteration) for at in FAULTS[name].seams)
    return Seams.attaching(pairs)
