"""Conformance kit for the Global Payments Service Interface.

The public surface is small: the pytest plugin (loaded through the ``pytest11`` entry
point), the ``conformance`` command, and the helpers named in ``__all__``.
"""

INTERFACE_VERSION = "2025-10-13"
SUITE_VERSION = "0.1.0"

__all__ = ["INTERFACE_VERSION", "SUITE_VERSION"]
