"""Quotes, transactions and money movement (§2 Quote, Transaction; §3; §4 Quotes and
transactions; §8 Limits)."""
