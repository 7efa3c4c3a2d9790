"""The money-conservation state machine's examples are shared out among lanes: each lane runs
its share, and no two lanes draw the same examples, derandomized or not."""

from __future__ import annotations

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, rule

from conformance.payments.conservation import LANES, lane_seed, run_lane


def recording_machine(drawn: list[tuple[int, ...]]) -> type[RuleBasedStateMachine]:
    """A machine whose examples append the numbers they drew to ``drawn``, one tuple each."""

    class Recording(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.numbers: list[int] = []
            drawn.append(())

        @rule(n=st.integers(0, 2**32))
        def draw(self, n: int) -> None:
            self.numbers.append(n)
            drawn[-1] = tuple(self.numbers)

    return Recording


def lanes_drawn(
    profile: settings, forced_seed: object | None = None
) -> list[list[tuple[int, ...]]]:
    drawn: list[list[tuple[int, ...]]] = []
    for lane in range(LANES):
        drawn.append([])
        run_lane(recording_machine(drawn[-1]), lane, 3, forced_seed, profile)
    return drawn


@pytest.mark.parametrize("derandomize", [True, False])
def test_each_lane_runs_its_share_and_the_lanes_differ(derandomize):
    profile = settings(max_examples=10, derandomize=derandomize, database=None, deadline=None)
    drawn = lanes_drawn(profile)
    for examples in drawn:
        # its share of the ten, rounded up (Hypothesis may add none beyond max_examples)
        assert len([e for e in examples if e]) == -(-10 // LANES), examples
    # every lane starts with Hypothesis's simplest example; past it, each draws its own
    rest = [frozenset(e for e in examples[1:] if e) for examples in drawn]
    assert all(a.isdisjoint(b) for i, a in enumerate(rest) for b in rest[i + 1 :]), rest


def test_a_derandomized_run_repeats_itself_lane_by_lane():
    profile = settings(max_examples=8, derandomize=True, database=None, deadline=None)
    assert lanes_drawn(profile) == lanes_drawn(profile)


def test_a_forced_seed_gives_each_lane_its_own_seed():
    seeds = {lane_seed(lane, False, 1234) for lane in range(LANES)}
    assert len(seeds) == LANES
    assert lane_seed(0, False, 1234) != lane_seed(0, False, 99)
    assert lane_seed(0, False, None) is None  # random per test: Hypothesis draws one
    profile = settings(max_examples=8, database=None, deadline=None)
    assert lanes_drawn(profile, 1234) == lanes_drawn(profile, 1234)
