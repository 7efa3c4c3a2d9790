"""Embedded-wallet authentication (§5): the suite's wallet client, keys, HPKE, passkeys and
tokens."""
