"""Internal and external accounts (§2 InternalAccount, ExternalAccount; §3) as the suite reaches
them."""
