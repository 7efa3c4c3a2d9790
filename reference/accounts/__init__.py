"""Internal and external accounts, funding sources and the ledger (§2 InternalAccount,
ExternalAccount; §3)."""
