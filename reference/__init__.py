"""Reference sandbox: our own implementation of the Global Payments Service Interface."""

INTERFACE_VERSION = "2025-10-13"
