"""Embedded-wallet authentication (§5) and embedded-wallet accounts."""
