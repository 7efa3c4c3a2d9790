"""Ending a run before its first test with the kit's own words on the console.

pytest prints an early exit as ``<exception class name>: <message>`` ("Exit: ..."); the
class here is named for the kit, so the line reads ``conformance: could not run ...``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn

import pytest

if TYPE_CHECKING:  # pytest names it publicly only as ``pytest.exit.Exception``
    from _pytest.outcomes import Exit as _Exit
else:
    _Exit = pytest.exit.Exception

__all__ = ["stop_run"]


class conformance(_Exit):
    """An early exit of the run, shown as ``conformance: <message>``."""


def stop_run(message: str, code: int) -> NoReturn:
    """Stop the run now with exit ``code``; the console shows ``conformance: <message>``."""
    raise conformance(message, returncode=code)
