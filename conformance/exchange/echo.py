"""Comparing what a target answers with what was sent, field by field.

A server may add fields to any object whose fields the interface does not close (DESIGN.md,
Verdicts: schemas allow additional properties), so an answer never has to equal what was
sent: every field sent must read back as sent, and nothing else is compared. Arrays keep
their length and order. Where the interface names an amount without fixing its type
("a fixed amount", §2 PlatformConfig feeConfigs), an integer sent may read back as a money
object ``{amount, ...}`` holding it; the caller names those keys.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

__all__ = ["differences", "echoes"]


def _scalar_equal(sent: Any, observed: Any) -> bool:
    if isinstance(sent, bool) or isinstance(observed, bool):
        return isinstance(sent, bool) and isinstance(observed, bool) and sent == observed
    return bool(sent == observed)


def _walk(sent: Any, observed: Any, where: str, amounts: Collection[str], out: list[str]) -> None:
    if isinstance(sent, Mapping):
        if not isinstance(observed, Mapping):
            out.append(f"{where or '$'}: sent an object, got {observed!r}")
            return
        for key, value in sent.items():
            path = f"{where}.{key}" if where else str(key)
            if key not in observed:
                if value is not None:  # a null sent may read back absent
                    out.append(f"{path}: sent {value!r}, missing from the answer")
                continue
            got = observed[key]
            is_amount = isinstance(value, int) and not isinstance(value, bool)
            if key in amounts and is_amount and isinstance(got, Mapping):
                got = got.get("amount")  # a fixed amount read back as a money object
            _walk(value, got, path, amounts, out)
        return
    if isinstance(sent, list):
        if not isinstance(observed, list) or len(observed) != len(sent):
            out.append(f"{where or '$'}: sent {len(sent)} entries, got {observed!r}")
            return
        for index, (one, other) in enumerate(zip(sent, observed, strict=True)):
            _walk(one, other, f"{where}[{index}]", amounts, out)
        return
    if not _scalar_equal(sent, observed):
        out.append(f"{where or '$'}: sent {sent!r}, got {observed!r}")


def differences(sent: Any, observed: Any, *, amounts: Collection[str] = ()) -> list[str]:
    """Every place where ``observed`` does not read back a field of ``sent``, as
    ``"path: sent X, got Y"``; empty when every sent field reads back as sent."""
    out: list[str] = []
    _walk(sent, observed, "", amounts, out)
    return out


def echoes(sent: Any, observed: Any, *, amounts: Collection[str] = ()) -> bool:
    """Whether every field of ``sent`` reads back as sent in ``observed`` (extra fields in
    ``observed`` are allowed; ``amounts`` names the keys whose integer may read back as a
    money object)."""
    return not differences(sent, observed, amounts=amounts)
