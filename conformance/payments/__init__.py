"""Quotes, transactions and money movement (§1 Funding, §2 Quote and Transaction, §3, §4
Quotes and transactions, §8 Limits) as the suite reaches them."""
