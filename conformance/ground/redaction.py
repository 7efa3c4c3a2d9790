"""The one place every writer goes through: secrets are scrubbed at write time.

Every artefact of a run passes here before it leaves the process: failure messages and
report sections (:func:`scrub_report`, so the console, ``junit.xml`` and the summaries get
clean reports, also from xdist workers), Allure results and attachments
(:func:`install_allure_scrubbing`), the summary files (:func:`write_text`), the terminal
(:func:`install_terminal_scrubbing`), and, last, every file left in the report folder
(:func:`scrub_tree`), so a writer added later cannot leak what the others do not.

The secrets and their forms come from :mod:`conformance.ground.secrets`.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from conformance.ground.secrets import (
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
# A form of length >= 2g - 1 holds, at one of its offsets 0..g-1, a g-character block aligned
# on a multiple of g in any text it stands in; so the forms of each tier are found by visiting
# one text position in g. Long forms (nearly all: tokens, keys, their encodings) go to the
# widest tier they fit, so most of a text is scanned sixteen characters at a time.
_GRAMS = (16, 8, 4)
# A tier this small (forms x gram) is searched form by form with str.find, in C, which is
# then cheaper than the Python scan (measured: find 0.1 ns per character and form, one scan
# step ~180 ns)
_FIND_LIMIT = 1024
_cache_lock = threading.Lock()
# A JSON string literal, escapes included; and how deep JSON held in a JSON string is
# decoded (an exchange in an Allure result's message in a report file)
_JSON_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_UNESCAPE_DEPTH = 3


_WORD = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def _find_standalone(text: str, code: str, found: list[tuple[int, int]]) -> None:
    """Append (start, -length) for each occurrence of a one-time code that stands alone
    (no ASCII letter or digit either side): codes are short, and scrubbed only there.

    str.find and a look at the two neighbours: a regex alternation led by a look-behind
    tried every position of the text (1.1 s of a run's CPU for nine codes)."""
    end_of_text = len(text)
    start = text.find(code)
    while start >= 0:
        end = start + len(code)
        if (start == 0 or text[start - 1] not in _WORD) and (
            end == end_of_text or text[end] not in _WORD
        ):
            found.append((start, -len(code)))
        start = text.find(code, start + 1)


def _replace_found(text: str, found: list[tuple[int, int]], replacement: str) -> str:
    """Leftmost, longest first: of the (start, -length) spans found, the earliest start
    wins, then the longest; spans overlapping a replaced one are dropped."""
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


class _Tier:
    """The forms one gram width finds: indexed by their ``gram``-character blocks."""

    def __init__(self, gram: int) -> None:
        self.gram = gram
        self.forms: list[str] = []
        self.blocks: dict[str, list[tuple[int, str]]] = {}

    def add(self, form: str) -> None:
        self.forms.append(form)
        for offset in range(self.gram):
            self.blocks.setdefault(form[offset : offset + self.gram], []).append((offset, form))

    def find_into(self, text: str, found: list[tuple[int, int]]) -> None:
        """Append (start, -length) for every occurrence of every form of the tier."""
        if len(self.forms) * self.gram <= _FIND_LIMIT:
            for form in self.forms:
                start = text.find(form)
                while start >= 0:
                    found.append((start, -len(form)))
                    start = text.find(form, start + 1)
            return
        get, gram = self.blocks.get, self.gram
        for i in range(0, len(text) - gram + 1, gram):
            hits = get(text[i : i + gram])
            if hits is not None:
                for offset, form in hits:
                    start = i - offset
                    if start >= 0 and text.startswith(form, start):
                        found.append((start, -len(form)))


class _Matcher:
    """Finds every form of every secret in a text: leftmost, longest first.

    Forms are indexed by blocks of their characters (``_Tier``), so a text is scanned a few
    times at most whatever the number of secrets (a regex alternation of a thousand forms is
    ten times slower, and recompiling it as secrets are learnt slower still).
    """

    def __init__(self, forms: set[str], codes: frozenset[str]) -> None:
        self.forms: frozenset[str] = frozenset()
        self.tiers = {gram: _Tier(gram) for gram in _GRAMS}
        self._index(forms)
        self.codes = codes

    def _index(self, forms: Iterable[str]) -> None:
        added = frozenset(forms) - self.forms
        for form in added:
            if len(form) < _KEY:  # too short to scrub safely anywhere (never matched)
                continue
            gram = next(g for g in _GRAMS if len(form) >= 2 * g - 1)
            self.tiers[gram].add(form)
        self.forms = self.forms | added
        self.scanned = tuple(tier for tier in self.tiers.values() if tier.forms)

    def grown(self, forms: set[str], codes: frozenset[str]) -> _Matcher:
        """This matcher, grown in place to ``forms`` (a superset of its own) and ``codes``.

        Secrets are only ever added, so a text scrubbed meanwhile by an older version of
        the matcher only gets more redacted; nothing is ever un-redacted."""
        self._index(forms)
        self.codes = codes
        return self

    @property
    def empty(self) -> bool:
        return not self.scanned and not self.codes

    def sub(
        self,
        text: str,
        replacement: str = REDACTED,
        also: _Matcher | None = None,
        depth: int = _UNESCAPE_DEPTH,
    ) -> str:
        """JSON string literals whose ``\\u`` escapes spell a secret first (``depth``
        levels of JSON in JSON), then secret forms (this matcher's and ``also``'s, found
        together: leftmost, longest over both, so no form is cut by another's replacement),
        then one-time codes standing alone in what is left."""
        if depth > 0 and "\\u" in text:
            text = self._unescaped(text, replacement, also, depth)
        tiers = self.scanned if also is None else self.scanned + also.scanned
        if tiers and len(text) >= _KEY:
            found: list[tuple[int, int]] = []
            for tier in tiers:
                tier.find_into(text, found)
            text = _replace_found(text, found, replacement)
        if self.codes:
            found = []
            for code in self.codes:
                _find_standalone(text, code, found)
            text = _replace_found(text, found, replacement)
        return text

    def _unescaped(self, text: str, replacement: str, also: _Matcher | None, depth: int) -> str:
        """``text`` with each JSON string literal that holds a secret only once decoded
        (its characters written as ``\\u`` escapes, which no fixed set of forms can list:
        any mix of them is valid JSON) replaced by the literal of its scrubbed content."""

        def literal(match: re.Match[str]) -> str:
            raw = match.group(0)
            if "\\u" not in raw:
                return raw
            try:
                decoded = json.loads(raw)
            except ValueError:  # a quote in free text, not a literal
                return raw
            cleaned = self.sub(decoded, replacement, also, depth - 1)
            return raw if cleaned == decoded else json.dumps(cleaned, ensure_ascii=False)

        return _JSON_STRING.sub(literal, text)


_MATCHER = _Matcher(set(), frozenset())  # every registered secret's; grown in place
_matched_version = [-1]  # the forms version _MATCHER was last grown to
_extras: dict[tuple[str, ...], _Matcher] = {}


def _current_matcher() -> _Matcher:
    """The matcher of every registered secret, grown to the secrets learnt so far."""
    if _matched_version[0] != forms_version():
        with _cache_lock:
            version, forms = known_forms()
            # secrets are only ever added: the matcher grows by the new forms, rather than
            # being built again from all of them
            _MATCHER.grown(set(forms), known_short_codes())
            _matched_version[0] = version
    return _MATCHER


def _pattern() -> _Matcher | None:
    """The current matcher, or None while no secret is registered."""
    matcher = _current_matcher()
    return None if matcher.empty else matcher


def _extra_matcher(extra: tuple[str, ...]) -> _Matcher:
    """A matcher of ``extra`` alone (secrets one caller adds, such as the credentials a
    client sends): searched beside the registered secrets' matcher rather than merged
    into a copy of it, which had to grow by every secret learnt later."""
    cached = _extras.get(extra)
    if cached is None:
        forms: set[str] = set()
        for secret in extra:
            forms |= {f for f in secret_forms(secret) if len(f) >= _KEY}
        cached = _Matcher(forms, frozenset())
        with _cache_lock:
            if len(_extras) > 64:
                _extras.clear()
            _extras[extra] = cached
    return cached


def scrub(text: str, extra: tuple[str, ...] = ()) -> str:
    """``text`` with every form of every known secret (and of ``extra``) replaced."""
    matcher = _current_matcher()
    also = _extra_matcher(extra) if extra else None
    if not text or (matcher.empty and (also is None or also.empty)):
        return text
    return matcher.sub(text, also=also)


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
    """Write a report file, scrubbed, in one step: a reader (or a second Ctrl-C that stops
    the process while it writes) sees the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        tmp.write_text(scrub(text), encoding="utf-8")
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


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
    import uuid

    from attr import asdict

    def _report_item(self: Any, item: Any) -> None:
        filename = item.file_pattern.format(prefix=uuid.uuid4())
        data = asdict(item, filter=lambda _, v: v or v is False)
        # one scan of the serialised text rather than one per string (~100 strings a
        # result): every secret's JSON-escaped forms are among the forms scrubbed
        text = scrub(json.dumps(data, ensure_ascii=False))
        tmp = self._report_dir / f"{filename}.tmp"
        with open(tmp, "w", encoding="utf8") as handle:
            handle.write(text)
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
