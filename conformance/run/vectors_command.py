"""``conformance vectors --out DIR``: write the shipped webhook test vectors
(``webhooks/delivering/vectors.py``) for a platform's own verifier tests."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from conformance.ground.exit_codes import EXIT_OK, EXIT_USAGE
from conformance.webhooks.delivering.vectors import write_vectors

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="conformance vectors",
        description="Write every delivery the receiver check sends (body bytes, headers, the "
        "verdict a receiver must reach and why) and the public key of the fixed test key "
        "that signs them: the same files every time.",
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="the folder to write into")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Write the vectors; 0, or 2 for a usage error (``--out`` missing or not a folder)."""
    try:
        ns = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:
        return EXIT_USAGE if exc.code else EXIT_OK
    out = Path(ns.out).expanduser()
    if out.exists() and not out.is_dir():
        print(f"conformance vectors: --out: {out} is not a folder", file=sys.stderr)
        return EXIT_USAGE
    try:
        vectors = write_vectors(out)
    except OSError as exc:
        print(f"conformance vectors: --out: cannot write {out}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    accepted = sum(vector.expect == "accept" for vector in vectors)
    print(
        f"conformance vectors: {len(vectors)} vectors ({accepted} accept, "
        f"{len(vectors) - accepted} reject) in {out / 'vectors.json'}"
    )
    return EXIT_OK
