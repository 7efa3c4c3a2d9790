"""``conformance report``: the Allure HTML report, built offline with a pinned generator.

The generator is Allure Report ``ALLURE_VERSION``, installed once with ``npm ci`` from the
lockfile in ``conformance/reporting/allure_pin/`` (exact versions and integrity hashes of every
package) into ``~/.cache/gpsi-conformance/allure-<version>``; after that no network is
needed. The generated report loads nothing from the internet: Allure's analytics tag is
removed, a Content-Security-Policy limits every load to the report's own origin (and
inline/data/blob resources), and a last check refuses any remaining page that would load
an ``http(s)://`` URL.

By default the report is one self-contained ``index.html`` that opens from disk (``--open``
opens it in the browser). ``--multi-file`` writes Allure's folder of files instead, which
browsers refuse to load from ``file://``: ``--open`` then serves it on loopback.

The tree groups the tests by part (epic, "§5 auth"), resource (feature) and first
requirement (story), each test once, sorted by name so that the parts keep the interface's
order; the report's name and overview carry the run's verdict, target and kit version
(``allure_overview.py``).
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path

__all__ = [
    "ALLURE_VERSION",
    "PIN_DIR",
    "build_report",
    "install_generator",
    "make_offline",
    "remote_loads",
    "serve_report",
]

ALLURE_VERSION = "3.18.0"
PIN_DIR = Path(__file__).resolve().parent / "allure_pin"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "gpsi-conformance"
REPORT_NAME = "GPSI conformance"
SETTINGS = {
    "name": REPORT_NAME,
    "plugins": {
        "awesome": {
            # sorted by name, the epics "§2 resources" ... "§9 versioning" keep the interface's
            # order (Allure's default sorts groups by their first test's start)
            "options": {"groupBy": ["epic", "feature", "story"], "defaultSortBy": "name,asc"}
        }
    },
}
CSP = (
    "default-src 'self' data: blob:; script-src 'self' 'unsafe-inline' 'unsafe-eval' data: "
    "blob:; style-src 'self' 'unsafe-inline' data:; img-src 'self' data: blob:; font-src "
    "'self' data:; connect-src 'self' data: blob:; worker-src 'self' blob: data:"
)
_ANALYTICS = re.compile(
    r"<script[^>]*googletagmanager\.com[^>]*>\s*</script>\s*<script>\s*window\.dataLayer.*?"
    r"</script>",
    re.S,
)
# what makes a page load a URL: an attribute, a CSS url()/@import, a module import
_LOADS = re.compile(
    r"""(?:\b(?:src|href|action|poster|data)\s*=\s*["']?|url\(\s*["']?|@import\s+["']|"""
    r"""\bimport\s*\(\s*["'])(https?:)?//[^\s"'()<>]+""",
    re.I,
)
_OK_EXIT, _FAILED_EXIT, _USAGE_EXIT = 0, 1, 2


def _say(text: str, *, error: bool = False) -> None:
    print(f"conformance report: {text}", file=sys.stderr if error else sys.stdout)


def install_generator(npm: str) -> Path | None:
    """The pinned generator's executable, installed with ``npm ci`` on first use."""
    home = CACHE / f"allure-{ALLURE_VERSION}"
    allure = home / "node_modules" / ".bin" / "allure"
    installed = home / "node_modules" / "allure" / "package.json"
    if allure.exists() and installed.exists():
        version = json.loads(installed.read_text(encoding="utf-8")).get("version")
        if version == ALLURE_VERSION:
            return allure
    _say(f"installing Allure {ALLURE_VERSION} (pinned, npm ci) into {home}; once only")
    home.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(PIN_DIR / name, home / name)
    done = subprocess.run(
        [npm, "ci", "--prefix", str(home), "--no-fund", "--no-audit", "--ignore-scripts"],
        check=False,
    )
    if done.returncode != 0 or not allure.exists():
        return None
    return allure


def make_offline(report: Path) -> list[str]:
    """Strip the analytics tag and add the CSP to every page; the remote loads left, if any."""
    problems: list[str] = []
    meta = f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
    for page in sorted(report.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        text = _ANALYTICS.sub("", text)
        if "Content-Security-Policy" not in text:
            text = re.sub(r"<head[^>]*>", lambda m: m.group(0) + meta, text, count=1)
        page.write_text(text, encoding="utf-8")
        problems += [f"{page.relative_to(report)}: {url}" for url in remote_loads(text)]
    return problems


def remote_loads(text: str) -> list[str]:
    """The http(s) or protocol-relative URLs a page would load (not plain strings)."""
    return [m.group(0) for m in _LOADS.finditer(text)]


def report_name(results: Path) -> str:
    """The report's name: the run's verdict (and what it covers) and target, as its results
    folder says."""
    from conformance.reporting.allure_overview import read_overview

    entries = read_overview(results)
    if not entries.get("verdict"):
        return REPORT_NAME
    verdict = entries.get("headline") or entries["verdict"]  # with the scope, when partial
    return f"{REPORT_NAME}: {verdict} ({entries.get('target', 'unknown target')})"


def build_report(report_dir: str, output: str | None, *, single_file: bool = True) -> int:
    """Build the report of ``report_dir``'s Allure results (one ``index.html`` by default)."""
    results = Path(report_dir) / "allure-results"
    target = Path(output) if output else Path(report_dir) / "allure-report"
    if not results.is_dir() or not any(results.iterdir()):
        _say(f"no Allure results in {results}; run `conformance run` first", error=True)
        return _USAGE_EXIT
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        _say(
            "Node.js (node and npm) is needed to build the HTML report; install Node.js 20 or "
            "later, or read the JUnit XML and summary.md instead",
            error=True,
        )
        return _USAGE_EXIT
    allure = install_generator(npm)
    if allure is None:
        _say(f"installing Allure {ALLURE_VERSION} with npm ci failed", error=True)
        return _FAILED_EXIT
    settings = json.loads(json.dumps(SETTINGS))
    settings["name"] = report_name(results)
    settings["plugins"]["awesome"]["options"]["singleFile"] = single_file
    config = Path(report_dir) / "allurerc.json"
    config.write_text(json.dumps(settings, indent=2), encoding="utf-8")
    shutil.rmtree(target, ignore_errors=True)
    done = subprocess.run(
        [str(allure), "generate", str(results), "-o", str(target), "--config", str(config)],
        check=False,
    )
    if done.returncode != 0:
        _say("Allure could not generate the report", error=True)
        return _FAILED_EXIT
    problems = make_offline(target)
    if problems:
        _say("the report would load from the internet: " + "; ".join(problems), error=True)
        return _FAILED_EXIT
    _say(f"{target / 'index.html'} (Allure {ALLURE_VERSION}, loads nothing from the internet)")
    if single_file:
        _say("one self-contained file: open it in a browser, from disk")
    else:
        _say(
            "several files, which browsers do not load from disk: open them with `conformance "
            f"report --report-dir {report_dir} --multi-file --open` (serves them on 127.0.0.1)"
        )
    return _OK_EXIT


def serve_report(
    folder: Path, port: int = 0, ready: Callable[[str], None] | None = None
) -> http.server.ThreadingHTTPServer:
    """Serve ``folder`` on loopback; ``ready`` gets the URL. The caller stops the server."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    if ready is not None:
        ready(url)
    return server


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return


def open_report(folder: Path, port: int = 0, *, single_file: bool = True) -> int:
    """Open the report in the browser: a single file from disk; a multi-file report served
    on loopback until Ctrl-C."""
    if not (folder / "index.html").is_file():
        _say(f"no report at {folder}; build it first", error=True)
        return _USAGE_EXIT
    if single_file:
        webbrowser.open((folder / "index.html").resolve().as_uri())
        return _OK_EXIT

    def announce(url: str) -> None:
        _say(f"serving {url} (loopback only); Ctrl-C stops it")
        webbrowser.open(url)

    server = serve_report(folder, port, announce)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        server.server_close()
    return _OK_EXIT
