"""Reading an error's code (§7 Errors) where the interface leaves its member open.

§7 names the codes (``INVALID_INPUT``, ``UNAUTHORIZED``, ...) but not the member carrying
them: "Error envelope fields beyond ``details.errors[]`` and ``reason``: not shown". So a
code counts wherever it is the value of a top-level member of the error body (``code``,
``errorCode``, ``error``, ...), with no profile setting. A profile's ``[field_names]
error_code`` names the member read first when a report shows which code was answered.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["DEFAULT_MEMBER", "carries_code", "code_of", "value_anywhere"]

DEFAULT_MEMBER = "code"
_CODE_LIKE = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$|^[A-Z]{4,}$")


def carries_code(body: Any, code: str, member: str | None = None) -> bool:
    """Whether an error body carries ``code``: as the value of ``member`` (when named) or
    of any top-level member."""
    if not isinstance(body, Mapping):
        return False
    if member is not None and body.get(member) == code:
        return True
    return any(value == code for value in body.values())


def code_of(body: Any, member: str = DEFAULT_MEMBER) -> str | None:
    """The code an error body answers, for reports: ``member``'s string when it has one,
    else the first top-level string written like a code (``UPPER_SNAKE``), else None."""
    if not isinstance(body, Mapping):
        return None
    named = body.get(member)
    if isinstance(named, str):
        return named
    return next((v for v in body.values() if isinstance(v, str) and _CODE_LIKE.match(v)), None)


def value_anywhere(code: str) -> dict[str, Any]:
    """The JSON Schema of an object one of whose top-level members has the value ``code``
    (not every member differs from it)."""
    return {"type": "object", "not": {"additionalProperties": {"not": {"const": code}}}}
