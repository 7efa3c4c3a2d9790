"""The compiled validator's early "valid" is never python's "invalid".

``SchemaRegistry.known_valid`` lets a body skip python's ``jsonschema`` walk when the
compiled validator accepts it. That is sound only if the compiled one is never laxer than
python for our schemas: here every valid sample of ``tests/schemas/``, mutated at a random
place by hostile values (trailing newlines before ``$``, non-ASCII digits, lone surrogates,
integers beyond 64 bits, NaN, 1.0 for an integer, ...), is accepted by python whenever the
compiled validator accepts it.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.contract.schemas import SchemaRegistry, default_registry

from .schemas.invalid_examples import INVALID
from .schemas.samples import TS, rid
from .schemas.valid_examples import COMMON_VALID, VALID

SAMPLES = [(name, sample) for name, samples in VALID.items() for sample in samples] + [
    (f"common#/$defs/{name}", sample) for name, sample in COMMON_VALID.items()
]

HOSTILE_STRINGS = [
    "USD\n", "US\n", "usd", "", " ", "\n", "١٢٣", "\uff12\uff10\uff12\uff15", "PENDING\n",
    "pending",
    rid("Quote") + "\n", rid("Quote").upper(), rid("Quote").replace(":", ": "),
    TS + "\n", "2025-10-13T12:00:00Z\n", "2025-13-40T25:61:61Z", "2025-10-13", "https://x\n",
    "https://", "ftp://x", "javascript:alert(1)", "Quote:" + "٣" * 8,
]  # fmt: skip
LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1.0, 0.0, -0.0, 1e308, 2.5, 2**63, -(2**63) - 1, 2**64]),
    st.text(max_size=12),
    st.text(st.characters(categories=["Cs", "Nd", "Zs", "Lu"]), max_size=6),
    st.sampled_from(HOSTILE_STRINGS),
)
VALUES = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


@pytest.fixture(scope="module")
def registry() -> SchemaRegistry:
    return default_registry()


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place inside a JSON value (the value itself first)."""
    found = [path]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += _places(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += _places(inner, (*path, index))
    return found


def _mutated(sample: Any, path: tuple[Any, ...], operation: str, value: Any) -> Any:
    if not path:
        return value
    mutated = copy.deepcopy(sample)
    parent = mutated
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    current = parent[last]
    if operation == "delete" and isinstance(parent, dict):
        del parent[last]
    elif operation == "newline" and isinstance(current, str):
        parent[last] = current + "\n"
    elif operation == "digits" and isinstance(current, str):
        parent[last] = current.translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩"))
    elif operation == "float" and isinstance(current, int) and not isinstance(current, bool):
        parent[last] = float(current)
    else:
        parent[last] = value
    return mutated


def _python_valid(registry: SchemaRegistry, name: str, instance: Any) -> bool:
    return bool(registry.validator(name).is_valid(instance))


@settings(
    max_examples=600,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_a_fast_valid_is_never_a_python_invalid(registry, data):
    name, sample = data.draw(st.sampled_from(SAMPLES), label="sample")
    path = data.draw(st.sampled_from(_places(sample)), label="place")
    operation = data.draw(st.sampled_from(["replace", "delete", "newline", "digits", "float"]))
    value = data.draw(VALUES, label="value")
    instance = _mutated(sample, path, operation, value)
    if registry.known_valid(name, instance):
        assert _python_valid(registry, name, instance), (name, path, operation, instance)


@pytest.mark.parametrize(("name", "sample"), SAMPLES, ids=[name for name, _ in SAMPLES])
def test_the_fast_path_accepts_the_valid_samples(registry, name, sample):
    """It does answer early: a compiled validator that refused everything would be sound,
    and no faster than python."""
    assert registry.known_valid(name, sample)


@pytest.mark.parametrize("case", INVALID, ids=[f"{c[0]}:{c[2]}" for c in INVALID])
def test_the_fast_path_never_accepts_an_invalid_sample(registry, case):
    name, instance = case[0], case[1]
    assert not registry.known_valid(name, instance)
    assert registry.violations(name, instance)
