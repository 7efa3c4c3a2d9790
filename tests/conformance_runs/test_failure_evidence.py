"""A failure's evidence reproduces what the test sent, from a real run of the suite."""

from __future__ import annotations

import pytest

from .runner import conformance_run


@pytest.mark.slow
def test_the_wrong_secret_failure_reproduces_with_a_wrong_secret(tmp_path):
    """§5: against a sandbox that accepts any secret, the failing test's curl line sends a
    secret that is not the profile's, never ``$CONFORMANCE_CLIENT_SECRET`` (which the
    server rightly accepts: the line would not reproduce the failure)."""
    result = conformance_run(
        tmp_path,
        "--parts=auth",
        "--embedded-args=--fault auth-accept-wrong-secret",
        "--",
        "-k",
        "test_wrong_secret_is_refused",
    )
    assert result.code == 1, result.output[-3000:]
    (failure,) = result.summary["failures"]
    reproduce = failure["message"].split("reproduce: ", 1)[1]
    assert '-u "$CONFORMANCE_CLIENT_ID:<a secret that is not the profile\'s>"' in reproduce
    assert "$CONFORMANCE_CLIENT_SECRET" not in reproduce
