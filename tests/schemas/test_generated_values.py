"""Generated values of the common definitions: typed ids, UTC timestamps, integer amounts."""

from __future__ import annotations

import datetime as dt
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from conformance.contract.schemas import SchemaRegistry

from .samples import ID_TYPES


@given(kind=st.sampled_from(ID_TYPES), uid=st.uuids(), upper=st.booleans())
def test_generated_typed_ids_are_valid(
    registry: SchemaRegistry, kind: str, uid: Any, upper: bool
) -> None:
    text = str(uid).upper() if upper else str(uid)
    assert registry.is_valid(f"common#/$defs/{kind}Id", f"{kind}:{text}")
    assert registry.is_valid("common#/$defs/TypedId", f"{kind}:{text}")


@given(
    kind=st.sampled_from(ID_TYPES),
    other=st.sampled_from(ID_TYPES),
    uid=st.uuids(),
)
def test_typed_ids_with_a_wrong_prefix_are_invalid(
    registry: SchemaRegistry, kind: str, other: str, uid: Any
) -> None:
    value = f"{other}:{uid}"
    assert registry.is_valid(f"common#/$defs/{kind}Id", value) == (kind == other)


@given(prefix=st.text(min_size=1, max_size=20).filter(lambda s: s not in ID_TYPES), uid=st.uuids())
def test_unknown_prefixes_are_not_record_ids(
    registry: SchemaRegistry, prefix: str, uid: Any
) -> None:
    assert not registry.is_valid("common#/$defs/TypedId", f"{prefix}:{uid}")


@given(
    kind=st.sampled_from(ID_TYPES),
    garbage=st.from_regex(r"\A[0-9a-fA-F-]{0,40}\Z").filter(
        lambda s: len(s) != 36 or s.count("-") != 4
    ),
)
def test_ids_without_a_uuid_are_invalid(registry: SchemaRegistry, kind: str, garbage: str) -> None:
    assert not registry.is_valid(f"common#/$defs/{kind}Id", f"{kind}:{garbage}")


@given(moment=st.datetimes(timezones=st.just(dt.UTC)), zulu=st.booleans())
def test_utc_timestamps_are_valid(registry: SchemaRegistry, moment: Any, zulu: bool) -> None:
    text = moment.isoformat()
    if zulu:
        text = text.replace("+00:00", "Z")
    assert registry.is_valid("common#/$defs/Timestamp", text), text


@given(
    moment=st.datetimes(),
    offset_minutes=st.integers(min_value=-14 * 60, max_value=14 * 60).filter(bool),
)
def test_non_utc_or_naive_timestamps_are_invalid(
    registry: SchemaRegistry, moment: Any, offset_minutes: int
) -> None:
    zone = dt.timezone(dt.timedelta(minutes=offset_minutes))
    assert not registry.is_valid("common#/$defs/Timestamp", moment.isoformat())
    assert not registry.is_valid("common#/$defs/Timestamp", moment.replace(tzinfo=zone).isoformat())


@given(amount=st.integers())
def test_integer_amounts_are_valid(registry: SchemaRegistry, amount: int) -> None:
    assert registry.is_valid("common#/$defs/Amount", amount)


@given(amount=st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: not f.is_integer()))
def test_fractional_amounts_are_invalid(registry: SchemaRegistry, amount: float) -> None:
    assert not registry.is_valid("common#/$defs/Amount", amount)
