"""The plugin's options and markers as a user sees them."""

from __future__ import annotations

from conformance.contract.markers import MARKERS
from conformance.ground import options as opt


def test_help_lists_every_setting_in_one_group(pytester):
    result = pytester.runpytest("--help")
    text = result.stdout.str()
    assert "conformance target (flag > CONFORMANCE_* environment variable > profile file)" in text
    for setting in opt.SETTINGS:
        assert setting.flag in text
        assert setting.env in text
    assert opt.PROFILE_FLAG in text and opt.PARTS_FLAG in text


def test_markers_are_registered(pytester):
    result = pytester.runpytest("--markers")
    for signature in MARKERS:
        result.stdout.fnmatch_lines([f"@pytest.mark.{signature}:*"])


def test_plain_project_runs_do_not_start_a_target(pytester):
    pytester.makepyfile("def test_nothing():\n    assert True\n")
    result = pytester.runpytest("--target-url=ftp://not-checked")
    result.assert_outcomes(passed=1)


def test_usage_error_for_an_unknown_part(pytester):
    result = pytester.runpytest("--conformance-parts=auth,nonsense")
    assert result.ret == 4  # pytest's usage error; `conformance run` maps it to 2
    result.stderr.fnmatch_lines(["*unknown part(s) nonsense*"])
