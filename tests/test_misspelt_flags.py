"""A misspelt flag of `conformance` is answered with the flag it was probably meant to be."""

from __future__ import annotations

import pytest

from conformance.run.cli import build_parser


def test_a_misspelt_run_flag_gets_did_you_mean(capsys):
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["run", "--rate-limt", "5"])
    assert exited.value.code == 2
    assert "--rate-limt: did you mean --rate-limit?" in capsys.readouterr().err


def test_a_flag_like_no_other_gets_no_guess(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", "--zzzzzz"])
    assert "did you mean" not in capsys.readouterr().err
