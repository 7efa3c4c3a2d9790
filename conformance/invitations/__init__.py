"""UMA invitations (§2 Other records, §3 Invitation) as the suite reaches them."""
