"""Waivers: accepted failures, each with a reason and an expiry date.

A waiver file (``--waivers FILE``, TOML) lists entries::

    [[waiver]]
    test = "suites/auth/test_basic_authentication.py::test_wrong_secret"  # or:
    requirement = "AUTH-BASIC-401"       # every test declaring this requirement id
    reason = "ticket PAY-123: fixed in 2.4"
    expires = 2026-12-31                 # last day the waiver holds (UTC)

A failure a valid waiver covers is reported as *waived* (pytest shows it as xfailed with
the reason; ``summary.json`` lists it under ``waived``) and does not fail the run. A waiver
past its expiry covers nothing and fails the run (exit 1, verdict ``failed``), so accepted
failures are looked at again. Waivers that matched no failure are listed as unused.
"""

from __future__ import annotations

import tomllib
from collections.abc import Generator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from conformance.contract.markers import REQUIREMENTS_PROPERTY
from conformance.ground.options import WAIVERS_ENV, WAIVERS_FLAG

__all__ = [
    "PLUGIN_NAME",
    "WAIVED_PROPERTY",
    "WAIVERS_ENV",
    "WAIVERS_FLAG",
    "Waiver",
    "WaiverPlugin",
    "check_subjects",
    "install",
    "load_waivers",
]

WAIVED_PROPERTY = "conformance_waived"
PLUGIN_NAME = "conformance-waivers"


@dataclass(frozen=True, slots=True)
class Waiver:
    reason: str
    expires: date
    test: str | None = None
    requirement: str | None = None

    @property
    def subject(self) -> str:
        return self.test or f"requirement {self.requirement}"

    def expired(self, today: date) -> bool:
        return today > self.expires

    def covers(self, nodeid: str, requirements: tuple[str, ...]) -> bool:
        if self.requirement is not None:
            return self.requirement in requirements
        assert self.test is not None
        bare = nodeid.split("[", 1)[0]
        return any(n == self.test or n.endswith("/" + self.test) for n in (nodeid, bare))

    def to_dict(self) -> dict[str, Any]:
        return {
            "test": self.test,
            "requirement": self.requirement,
            "reason": self.reason,
            "expires": self.expires.isoformat(),
        }


def _usage(path: str, problem: str) -> pytest.UsageError:
    return pytest.UsageError(
        f"conformance: {WAIVERS_FLAG}={path!r}: {problem}. Each [[waiver]] needs `test` or "
        "`requirement`, a `reason` and an `expires` date (YYYY-MM-DD)."
    )


def load_waivers(path: str) -> list[Waiver]:
    file = Path(path)
    if not file.is_file():
        raise _usage(path, "no such file")
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise _usage(path, f"not valid TOML ({exc})") from exc
    unknown = sorted(set(data) - {"waiver"})
    if unknown:
        raise _usage(path, f"unknown key(s) {', '.join(unknown)}")
    waivers = []
    for index, entry in enumerate(data.get("waiver", []), 1):
        if not isinstance(entry, dict):
            raise _usage(path, f"waiver {index} is not a table")
        extra = sorted(set(entry) - {"test", "requirement", "reason", "expires"})
        if extra:
            raise _usage(path, f"waiver {index}: unknown key(s) {', '.join(extra)}")
        test, requirement = entry.get("test"), entry.get("requirement")
        if (test is None) == (requirement is None):
            raise _usage(path, f"waiver {index}: give exactly one of `test` and `requirement`")
        reason = str(entry.get("reason") or "").strip()
        if not reason:
            raise _usage(path, f"waiver {index} ({test or requirement}): no reason")
        expires = entry.get("expires")
        if isinstance(expires, str):
            try:
                expires = date.fromisoformat(expires)
            except ValueError:
                raise _usage(path, f"waiver {index}: expires={expires!r} is not a date") from None
        if isinstance(expires, datetime):
            expires = expires.date()
        if not isinstance(expires, date):
            raise _usage(path, f"waiver {index} ({test or requirement}): no `expires` date")
        waivers.append(
            Waiver(
                reason=reason,
                expires=expires,
                test=str(test) if test is not None else None,
                requirement=str(requirement) if requirement is not None else None,
            )
        )
    return waivers


@dataclass
class WaiverPlugin:
    """Turns covered failures into waived ones; an expired waiver fails the session."""

    path: str
    waivers: list[Waiver]
    today: date = field(default_factory=lambda: datetime.now(UTC).date())

    @property
    def expired(self) -> list[Waiver]:
        return [w for w in self.waivers if w.expired(self.today)]

    def find(self, nodeid: str, requirements: tuple[str, ...]) -> int | None:
        for index, waiver in enumerate(self.waivers):
            if not waiver.expired(self.today) and waiver.covers(nodeid, requirements):
                return index
        return None

    @pytest.hookimpl(hookwrapper=True, trylast=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, Any, None]:
        outcome = yield
        report: pytest.TestReport = outcome.get_result()
        if not report.failed or call.when != "call":
            return
        ids = tuple(
            rid
            for key, value in report.user_properties
            if key == REQUIREMENTS_PROPERTY
            for rid in str(value).split(",")
            if rid
        )
        if not ids:
            mark = item.get_closest_marker("requirement")
            ids = tuple(str(a) for a in mark.args) if mark else ()
        index = self.find(report.nodeid, ids)
        if index is None:
            return
        waiver = self.waivers[index]
        report.user_properties.append(
            (WAIVED_PROPERTY, f"{waiver.reason} (expires {waiver.expires.isoformat()})")
        )
        report.outcome = "skipped"
        report.wasxfail = f"waived: {waiver.reason}"

    def pytest_report_header(self) -> str:
        text = f"conformance waivers: {len(self.waivers)} from {self.path}"
        if self.expired:
            text += f"; EXPIRED: {', '.join(w.subject for w in self.expired)}"
        return text

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        for waiver in self.expired:
            terminalreporter.write_line(
                f"conformance: EXPIRED waiver for {waiver.subject} (expired "
                f"{waiver.expires.isoformat()}: {waiver.reason}) fails the run; renew or drop it",
                red=True,
            )

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.expired and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def view(self, waived: list[tuple[str, tuple[str, ...]]]) -> dict[str, Any]:
        """What the summary shows; ``waived`` are the (nodeid, requirement ids) of the
        waived tests (under xdist the workers waived them, not this process)."""
        return {
            "file": self.path,
            "expired": [w.to_dict() for w in self.expired],
            "unused": [
                w.to_dict()
                for w in self.waivers
                if not w.expired(self.today) and not any(w.covers(n, r) for n, r in waived)
            ],
        }


def check_subjects(path: str, waivers: list[Waiver]) -> None:
    """Every waiver names a requirement of the catalogue or a test of the suite (all its
    parts, whichever this run collects): a misspelt one would never match, and the failure
    it was meant to cover would fail the run with no word about the waiver."""
    from conformance.contract.requirements import default_catalogue
    from conformance.reporting.suite_index import closest_test_ids, names_a_suite_test

    known = {r.id for r in default_catalogue()}
    for waiver in waivers:
        if waiver.requirement is not None and waiver.requirement not in known:
            raise _usage(path, f"requirement {waiver.requirement!r} is not in the catalogue")
        if waiver.test is not None and not names_a_suite_test(waiver.test):
            close = closest_test_ids(waiver.test)
            hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
            raise _usage(
                path,
                f"test {waiver.test!r} is not a test of the suite{hint}; name it as "
                "'<part>/<module>.py::<test>', e.g. "
                "'auth/test_basic_authentication.py::test_wrong_secret_is_refused'",
            )


def install(config: pytest.Config, path: str | None) -> WaiverPlugin | None:
    """Register the waivers of ``path`` (controller and xdist workers alike)."""
    if not path:
        return None
    existing = config.pluginmanager.get_plugin(PLUGIN_NAME)
    if isinstance(existing, WaiverPlugin):
        return existing
    waivers = load_waivers(path)
    if not hasattr(config, "workerinput"):  # the controller checked them before any worker
        check_subjects(path, waivers)
    plugin = WaiverPlugin(path, waivers)
    config.pluginmanager.register(plugin, PLUGIN_NAME)
    return plugin
