"""Merge what the fault runs observed (``SELFTEST_RECORD_BLAST_RADIUS=DIR pytest
tests/conformance_runs/test_fault_modes.py -m slow``) into ``fault_blast_radius.json``,
keeping each entry's ``why``: ``python -m tests.conformance_runs.fault_blast_radius DIR``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

TABLE = Path(__file__).with_name("fault_blast_radius.json")


def merge(folder: Path) -> dict[str, dict[str, object]]:
    """The table with every observation of ``folder`` in place of its fault's entry."""
    table = json.loads(TABLE.read_text()) if TABLE.exists() else {}
    for path in sorted(folder.glob("*.json")):
        observed = json.loads(path.read_text())
        why = table.get(path.stem, {}).get("why")
        table[path.stem] = {**observed, **({"why": why} if why else {})}
    return dict(sorted(table.items()))


if __name__ == "__main__":
    merged = merge(Path(sys.argv[1]))
    TABLE.write_text(json.dumps(merged, indent=1) + "\n")
    print(f"{len(merged)} faults in {TABLE}")
