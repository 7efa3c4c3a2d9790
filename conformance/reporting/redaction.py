"""The one place every writer goes through: secrets are scrubbed at write time.

Every artefact of a run passes here before it leaves the process: failure messages and
report sections (:func:`scrub_report`, so the console, ``junit.xml`` and the summaries get
clean reports, also from xdist workers), Allure results and attachments
(:func:`install_allure_scrubbing`), the summary files (:func:`write_text`), the terminal
(:func:`install_terminal_scrubbing`), and, last, every file left in the report folder
(:func:`scrub_tree`), so a writer added later cannot leak what the others do not.

The secrets and their forms come from :mod:`conformance.reporting.secrets`.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from conformance.reporting.secrets import (
    forms_version,
    known_forms,
    known_short_codes,
    secret_forms,
)

__all__ = [
    "REDACTED",
    "install_allure_scrubbing",
    "install_terminal_scrubbing",
    "scrub",
    "scrub_bytes",
    "scrub_obj",
    "scrub_report",
    "scrub_tree",
    "write_text",
]

REDACTED = "<redacted>"
_ESCAPED_REDACTED = "&lt;redacted&gt;"
_MARKUP_SUFFIXES = frozenset((".xml", ".html", ".htm", ".svg"))
_MAX_SCRUBBED_FILE = 64 * 1024 * 1024
_KEY = 8  # every form is at least this long
_GRAM = 4  # forms are indexed by their blocks of this many characters at offsets 0-3
_cache_lock = threading.Lock()
_cache: dict[tuple[int, tuple[str, ...]], _Matcher] = {}
_latest: dict[tuple[str, ...], _Matcher] = {}


def _codes_pattern(codes: frozenset[str]) -> re.Pattern[str] | None:
    """One-time codes are short: scrubbed only where they stand alone."""
    if not codes:
        return None
    return re.compile(
        "|".join(rf"(?<![0-9A-Za-z]){re.escape(c)}(?![0-9A-Za-z])" for c in sorted(codes))
    )


class _Matcher:
    """Finds every form of every secret in a text: leftmost, longest first.

    Forms are indexed by their first characters, so a text is scanned once whatever the
    number of secrets (a regex alternation of a thousand forms is ten times slower, and
    recompiling it as secrets are learnt slower still).
    """

    def __init__(self, forms: set[str], codes: frozenset[str]) -> None:
        # every form is at least _KEY (8) long, so each occurrence holds, at one of its
        # offsets 0-3, a _GRAM-character block aligned on a multiple of _GRAM in the text:
        # the scan visits one position in four and checks the forms that block may start
        self.forms = frozenset(forms)
        self.grams: dict[str, list[tuple[int, str]]] = {}
        self._index(self.forms)
        self.code_set = codes
        self.code_list = tuple(codes)
        self.codes = _codes_pattern(codes)

    def _index(self, forms: Iterable[str]) -> None:
        grams = self.grams
        for form in forms:
            if len(form) < _KEY:  # too short to scrub safely anywhere (never matched)
                continue
            for offset in range(_GRAM):
                grams.setdefault(form[offset : offset + _GRAM], []).append((offset, form))

    def grown(self, forms: set[str], codes: frozenset[str]) -> _Matcher:
        """This matcher, grown in place to ``forms`` (a superset of its own) and ``codes``.

        Secrets are only ever added, so a text scrubbed meanwhile by an older version of
        the matcher only gets more redacted; nothing is ever un-redacted."""
        added = frozenset(forms) - self.forms
        self._index(added)
        self.forms = self.forms | added
        if codes != self.code_set:
            self.codes = _codes_pattern(codes)
            self.code_list = tuple(codes)
            self.code_set = codes
        return self

    @property
    def empty(self) -> bool:
        return not self.grams and self.codes is None

    def sub(self, text: str, replacement: str = REDACTED) -> str:
        if self.grams and len(text) >= _KEY:
            text = self._sub_forms(text, replacement)
        if self.codes is not None and any(code in text for code in self.code_list):
            text = self.codes.sub(replacement.replace("\\", "\\\\"), text)
        return text

    def _sub_forms(self, text: str, replacement: str) -> str:
        """Leftmost, longest first: of the forms found, the earliest start wins, then the
        longest form; the text after it is scanned on."""
        get = self.grams.get
        found: list[tuple[int, int]] = []
        for i in range(0, len(text) - _GRAM + 1, _GRAM):
            hits = get(text[i : i + _GRAM])
            if hits is not None:
                for offset, form in hits:
                    start = i - offset
                    if start >= 0 and text.startswith(form, start):
                        found.append((start, -len(form)))
        if not found:
            return text
        found.sort()
        parts: list[str] = []
        last = 0
        for start, negative_length in found:
            if start >= last:
                parts += [text[last:start], replacement]
                last = start - negative_length
        parts.append(text[last:])
        return "".join(parts)


def _pattern(extra: tuple[str, ...] = ()) -> _Matcher | None:
    version = forms_version()
    cached = _cache.get((version, extra))
    if cached is None:
        with _cache_lock:
            version, forms = known_forms()
            everything = set(forms)
            for secret in extra:
                everything |= {f for f in secret_forms(secret) if len(f) >= _KEY}
            codes = known_short_codes()
            # secrets are only ever added: the matcher of these extras grows by the new
            # forms, rather than being built again from all of them
            previous = _latest.get(extra)
            if previous is not None and previous.forms <= everything:
                cached = previous.grown(everything, codes)
            else:
                cached = _Matcher(everything, codes)
            _latest[extra] = cached
            if len(_cache) > 64:
                _cache.clear()
            _cache[(version, extra)] = cached
    return None if cached.empty else cached


def scrub(text: str, extra: tuple[str, ...] = ()) -> str:
    """``text`` with every form of every known secret (and of ``extra``) replaced."""
    matcher = _pattern(extra)
    if matcher is None or not text:
        return text
    return matcher.sub(text)


def scrub_bytes(data: bytes, replacement: str = REDACTED) -> bytes:
    """Bytes scrubbed as UTF-8 text (undecodable bytes are kept as they are); each secret
    becomes ``replacement``."""
    pattern = _pattern()
    if pattern is None or not data:
        return data
    text = data.decode("utf-8", errors="surrogateescape")
    cleaned = pattern.sub(text, replacement)
    return data if cleaned == text else cleaned.encode("utf-8", errors="surrogateescape")


def scrub_obj(value: Any) -> Any:
    """A copy of a JSON-like value with every string scrubbed (iteratively: no recursion
    limit, whatever the nesting)."""
    if isinstance(value, str):
        return scrub(value)
    if not isinstance(value, dict | list | tuple):
        return value
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, root, 0)]
    while stack:
        item, parent, key = stack.pop()
        if isinstance(item, str):
            parent[key] = scrub(item)
        elif isinstance(item, dict):
            copy: dict[Any, Any] = {}
            parent[key] = copy
            for k, v in item.items():
                new_key = scrub(k) if isinstance(k, str) else k
                copy[new_key] = None
                stack.append((v, copy, new_key))
        elif isinstance(item, list | tuple):
            items: list[Any] = [None] * len(item)
            parent[key] = items  # tuples become lists
            for index, v in enumerate(item):
                stack.append((v, items, index))
        else:
            parent[key] = item
    result = root[0]
    if isinstance(value, tuple):
        return tuple(result)
    return result


def scrub_report(report: pytest.TestReport | pytest.CollectReport) -> None:
    """Scrub a report in place: its failure text, captured sections and user properties.

    Runs where the report is made (in the xdist worker that ran the test), so secrets that
    process learnt are scrubbed before the report travels anywhere.
    """
    if _pattern() is None:
        return
    sections = [(scrub(name), scrub(text)) for name, text in report.sections]
    if sections != report.sections:
        report.sections[:] = sections
    if isinstance(report, pytest.TestReport):
        report.user_properties[:] = [
            (k, scrub(v) if isinstance(v, str) else v) for k, v in report.user_properties
        ]
    longrepr = report.longrepr
    if longrepr is None:
        return
    if isinstance(longrepr, str):
        report.longrepr = scrub(longrepr)
        return
    if isinstance(longrepr, tuple):
        report.longrepr = tuple(scrub(v) if isinstance(v, str) else v for v in longrepr)  # type: ignore[assignment]
        return
    text = str(longrepr)
    if scrub(text) == text:
        return
    data = scrub_obj(report._to_json())
    clean = type(report)._from_json(data)
    report.longrepr = clean.longrepr


def write_text(path: Path, text: str) -> None:
    """Write a report file, scrubbed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(scrub(text), encoding="utf-8")


def scrub_file(path: Path) -> bool:
    """Scrub one file in place; True if it held a secret."""
    try:
        if path.stat().st_size > _MAX_SCRUBBED_FILE:
            return False
        data = path.read_bytes()
    except OSError:
        return False
    # in markup the mark is escaped, so that a file scrubbed here stays well-formed
    markup = path.suffix.lower() in _MARKUP_SUFFIXES
    cleaned = scrub_bytes(data, _ESCAPED_REDACTED if markup else REDACTED)
    if cleaned == data:
        return False
    tmp = path.with_name(path.name + ".scrub")
    tmp.write_bytes(cleaned)
    tmp.replace(path)
    return True


def scrub_tree(folder: Path) -> list[Path]:
    """Scrub every file under ``folder``; the files that held a secret."""
    if _pattern() is None or not folder.is_dir():
        return []
    return [p for p in sorted(folder.rglob("*")) if p.is_file() and scrub_file(p)]


# -- writers we do not own -------------------------------------------------------------------


def install_allure_scrubbing() -> None:
    """Make allure-pytest's file writer scrub every result, container and attachment."""
    try:
        from allure_commons import logger
    except ImportError:  # allure-pytest not installed: nothing writes Allure results
        return
    cls: Any = logger.AllureFileLogger
    if getattr(cls, "_conformance_scrubbing", False):
        return
    import json
    import os
    import uuid

    from attr import asdict

    def _report_item(self: Any, item: Any) -> None:
        filename = item.file_pattern.format(prefix=uuid.uuid4())
        data = scrub_obj(asdict(item, filter=lambda _, v: v or v is False))
        tmp = self._report_dir / f"{filename}.tmp"
        with open(tmp, "w", encoding="utf8") as handle:
            json.dump(data, handle, ensure_ascii=False)
        os.replace(tmp, self._report_dir / filename)

    original_file = cls.report_attached_file
    original_data = cls.report_attached_data

    def report_attached_data(self: Any, body: Any, file_name: str) -> None:
        if isinstance(body, str):
            body = scrub(body)
        elif isinstance(body, bytes):
            body = scrub_bytes(body)
        original_data(self, body, file_name)

    def report_attached_file(self: Any, source: Any, file_name: str) -> None:
        original_file(self, source, file_name)
        scrub_file(self._report_dir / file_name)

    # keep the pluggy markers of the original hook implementations
    for name, new in (
        ("report_attached_data", report_attached_data),
        ("report_attached_file", report_attached_file),
    ):
        old = getattr(cls, name)
        new.__dict__.update(getattr(old, "__dict__", {}))
        setattr(cls, name, new)
    cls._report_item = _report_item
    cls._conformance_scrubbing = True


class _ScrubbingFile:
    """A text stream that scrubs what is written through it."""

    def __init__(self, wrapped: Any) -> None:
        self._wrapped = wrapped

    def write(self, text: str) -> int:
        self._wrapped.write(scrub(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._wrapped, name)


def install_terminal_scrubbing(config: pytest.Config) -> None:
    """Scrub everything pytest's terminal writer prints (the console)."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    writer = getattr(reporter, "_tw", None)
    if writer is None or isinstance(getattr(writer, "_file", None), _ScrubbingFile):
        return
    writer._file = _ScrubbingFile(writer._file)


def scrub_lines(lines: Iterable[str]) -> list[str]:
    return [scrub(line) for line in lines]
