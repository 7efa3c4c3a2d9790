"""Customers and their verification (§2 Customer, BeneficialOwner, Document; §3 Customer
verification; §4 Customers and verification)."""
