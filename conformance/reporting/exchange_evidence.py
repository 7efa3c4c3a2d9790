"""Every exchange of a run, redacted, one JSON line each (``--record-exchanges``).

Allure attaches the last exchanges of each test; a certification bundle needs them all.
When the option is on, each process appends the exchanges of each test to
``REPORT_DIR/evidence/exchanges-<worker>.jsonl`` (written through the redaction layer), and
the controller writes the redacted profile to ``evidence/profile.json``.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from conformance.ground.options import RECORD_EXCHANGES_FLAG as RECORD_FLAG
from conformance.ground.redaction import scrub, write_text

__all__ = ["EVIDENCE_DIR", "RECORD_FLAG", "record", "recording", "start"]

EVIDENCE_DIR = "evidence"
_lock = threading.Lock()


def recording(config: pytest.Config) -> bool:
    return bool(config.getoption("conformance_record_exchanges", False))


def start(config: pytest.Config, profile: Any) -> None:
    """Controller, at start: an empty evidence folder and the redacted profile."""
    if not recording(config):
        return
    folder = Path(profile.report_dir) / EVIDENCE_DIR
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    write_text(folder / "profile.json", json.dumps(profile.describe(), indent=2) + "\n")


def record(config: pytest.Config, report_dir: str, nodeid: str, exchanges: Sequence[Any]) -> None:
    """Append the exchanges of one test (already redacted by the client; scrubbed again)."""
    if not exchanges or not recording(config):
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    path = Path(report_dir) / EVIDENCE_DIR / f"exchanges-{worker}.jsonl"
    lines = []
    for index, exchange in enumerate(exchanges):
        row = {
            "nodeid": nodeid,
            "index": index,
            "method": exchange.method,
            "url": exchange.url,
            "request_headers": dict(exchange.request_headers),
            "request_body": exchange.request_body,
            "status": exchange.status,
            "response_headers": dict(exchange.response_headers),
            "response_body": exchange.response_body,
            "elapsed_ms": round(exchange.elapsed_ms, 1),
            "error": exchange.error,
            "curl": exchange.curl,
        }
        lines.append(scrub(json.dumps(row, ensure_ascii=False)))
    with _lock:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
