"""Building blocks for request validation that report every invalid field at once.

A validator walks the whole body, records each problem in a ``Problems`` collector and
raises once at the end (§7: "validation errors list every invalid field at once").
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from reference.kernel.errors import FieldError, InvalidInput, RecordsInConflict, RecordsNotFound

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1  # SQLite's INTEGER


def at(base: str, key: str | int) -> str:
    """The path of ``key`` inside ``base``: ``a.b`` for keys, ``a[0]`` for indexes."""
    if isinstance(key, int):
        return f"{base}[{key}]"
    return f"{base}.{key}" if base else key


def is_integer(value: Any) -> bool:
    """A JSON integer: ``bool`` is an ``int`` subclass in Python but not in JSON."""
    return isinstance(value, int) and not isinstance(value, bool)


class Problems:
    """Collects field errors; the typed checks return the value when it passed, else None."""

    def __init__(self) -> None:
        self._errors: list[FieldError] = []
        self._unknown: list[FieldError] = []
        self._conflicts: list[FieldError] = []

    def __bool__(self) -> bool:
        return bool(self._errors or self._unknown or self._conflicts)

    def __len__(self) -> int:
        """How many problems were recorded (lets a check tell whether its part added any)."""
        return len(self._errors) + len(self._unknown) + len(self._conflicts)

    def add(self, field: str, constraint: str, message: str) -> None:
        """Record one invalid field."""
        self._errors.append(FieldError(field, constraint, message))

    def unknown(self, field: str, constraint: str, message: str) -> None:
        """Record a well-formed id naming no record of this platform (``UNKNOWN_*``)."""
        self._unknown.append(FieldError(field, constraint, message))

    def conflict(self, field: str, constraint: str, message: str) -> None:
        """Record a well-formed value the current state of a record refuses (409)."""
        self._conflicts.append(FieldError(field, constraint, message))

    def raise_if_any(self) -> None:
        """Raise ``RecordsNotFound`` (404) naming the ids that name no record, if any did,
        else ``InvalidInput`` with every invalid field, else ``RecordsInConflict`` (409)
        with every value the records' current state refuses. Existence comes first, as for
        an id in the path: what a body says about a record that is not there is not
        judged; the form before the state, which only a well-formed request meets."""
        if self._unknown:
            raise RecordsNotFound(self._unknown)
        if self._errors:
            raise InvalidInput(self._errors)
        if self._conflicts:
            raise RecordsInConflict(self._conflicts)

    def required(self, obj: Mapping[str, Any], key: str, path: str) -> Any:
        """``obj[key]``, recording ``REQUIRED`` when the key is absent or null."""
        value = obj.get(key)
        if value is None:
            self.add(at(path, key), "REQUIRED", "is required")
        return value

    def no_nulls(self, obj: Mapping[str, Any], keys: Collection[str], path: str) -> None:
        """Record ``NOT_NULL`` for each of ``keys`` sent as null: on a PATCH the interface
        gives null no meaning (it neither clears nor keeps), so it is refused, not ignored."""
        for key in keys:
            if key in obj and obj[key] is None:
                self.add(at(path, key), "NOT_NULL", "must not be null: omit it to keep the value")

    def object(self, path: str, value: Any) -> dict[str, Any] | None:
        """``value`` if it is a JSON object."""
        if isinstance(value, dict):
            return value
        self.add(path, "TYPE_OBJECT", "must be an object")
        return None

    def array(self, path: str, value: Any) -> list[Any] | None:
        """``value`` if it is a JSON array."""
        if isinstance(value, list):
            return value
        self.add(path, "TYPE_ARRAY", "must be an array")
        return None

    def string(self, path: str, value: Any) -> str | None:
        """``value`` if it is a string."""
        if isinstance(value, str):
            return value
        self.add(path, "TYPE_STRING", "must be a string")
        return None

    def boolean(self, path: str, value: Any) -> bool | None:
        """``value`` if it is true or false."""
        if isinstance(value, bool):
            return value
        self.add(path, "TYPE_BOOLEAN", "must be a boolean")
        return None

    def integer(
        self, path: str, value: Any, *, minimum: int | None = None, maximum: int | None = None
    ) -> int | None:
        """``value`` if it is an integer within the bounds (an integral number such as 1.0
        is one, as the body layer reads it), and within the signed 64-bit range SQLite
        stores (``INT64``) whatever the bounds."""
        if not is_integer(value):
            self.add(path, "TYPE_INTEGER", "must be an integer")
            return None
        if not INT64_MIN <= value <= INT64_MAX:
            self.add(path, "INT64", "must fit in a signed 64-bit integer")
            return None
        if minimum is not None and value < minimum:
            self.add(path, "MINIMUM", f"must be at least {minimum}")
            return None
        if maximum is not None and value > maximum:
            self.add(path, "MAXIMUM", f"must be at most {maximum}")
            return None
        result: int = value
        return result

    def one_of(self, path: str, value: Any, allowed: Collection[str]) -> str | None:
        """``value`` if it is one of ``allowed`` (constraint ``ENUM``)."""
        if isinstance(value, str) and value in allowed:
            return value
        self.add(path, "ENUM", f"must be one of {', '.join(sorted(allowed))}")
        return None
