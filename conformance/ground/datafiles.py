"""Where the shipped data folders are: beside the package in a checkout, inside when installed."""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parents[1]
SUITES_DIR = _PACKAGE_DIR / "suites"  # the conformance suites, one folder a part
# the tests of `conformance receiver` (a platform's webhook endpoint), never of `run`
RECEIVER_SUITE_DIR = _PACKAGE_DIR / "receiver_suite"


def _data_dir(name: str) -> Path:
    installed = _PACKAGE_DIR / "_data" / name
    if installed.is_dir():
        return installed
    checkout = _PACKAGE_DIR.parent / name
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(
        f"the conformance kit's {name}/ folder is missing (looked in {installed} and {checkout}); "
        "reinstall the package"
    )


def schemas_dir() -> Path:
    """Return the folder holding the JSON Schema documents."""
    return _data_dir("schemas")


def fixtures_dir() -> Path:
    """Return the folder holding the data files the suite sends."""
    return _data_dir("fixtures")
