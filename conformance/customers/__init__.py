"""Customers and their verification (§2 Customer, §3 Customer verification, §4 Customers and
verification) as the suite reaches them."""
