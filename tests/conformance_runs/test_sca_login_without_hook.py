"""The outside-SCA login check needs no adapter: the 409 does not depend on the proof, so a
target without ``pytest_conformance_sca_login_body`` is still held to it (the check used to
skip there, and a server answering 200 passed)."""

from __future__ import annotations

import pytest

from .runner import conformance_run

TEST = "test_sca_login_answers_409_for_customers_outside_sca"
# an adapter with hooks, but not the SCA login one
NO_LOGIN_HOOK = "--adapter=reference.adapter.states"


@pytest.mark.slow
@pytest.mark.parametrize(("fault", "code"), [("sca-non-sca-endpoint-200", 1), ("", 0)])
def test_the_login_check_runs_and_fails_without_the_login_hook(tmp_path, fault, code):
    embedded = f"--embedded-args=--fault {fault}" if fault else "--embedded-args="
    result = conformance_run(
        tmp_path, "--parts=errors", embedded, NO_LOGIN_HOOK, "--webhook-timeout=3",
        "--", "-k", TEST,
    )  # fmt: skip
    assert result.code == code, result.output[-3000:]
    totals = result.summary["totals"]
    assert (totals["passed"], totals["failed"], totals["skipped"]) == (1 - code, code, 0)
    for failure in result.summary["failures"]:
        assert "§5 Authentication" in failure["message"], failure
