"""The pytest arguments every command of the kit starts its session with (``run``,
``receiver``): only the kit's plugins, and the report files in the report folder."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

__all__ = ["passed_through", "session_arguments"]


def session_arguments(report_dir: Path, plugins: Iterable[str]) -> list[str]:
    """Plugin autoloading off and ``plugins`` loaded instead; Allure results and JUnit XML
    in ``report_dir``; failures and errors listed at the end."""
    return [
        "--disable-plugin-autoload",
        *(arg for plugin in plugins for arg in ("-p", plugin)),
        "-p",
        "no:cacheprovider",
        # its end-of-session gc.collect() walked the whole heap of each process (0.2 s of a
        # worker's CPU); an exception in a __del__ of the kit is a self-test matter
        "-p",
        "no:unraisableexception",
        "-o",
        "console_output_style=count",
        f"--alluredir={report_dir / 'allure-results'}",
        "--clean-alluredir",
        f"--junitxml={report_dir / 'junit.xml'}",
        "-o",
        "junit_family=xunit2",
        "-rfE",
        # the CLI imports the package before pytest starts; nothing to rewrite there
        "-W",
        "ignore::pytest.PytestAssertRewriteWarning",
    ]


def passed_through(pytest_args: Sequence[str]) -> list[str]:
    """What follows ``--`` on the command line, for pytest itself."""
    extra = list(pytest_args)
    return extra[1:] if extra and extra[0] == "--" else extra
