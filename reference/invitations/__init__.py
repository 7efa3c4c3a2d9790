"""UMA invitations (§2 Other records, §3 Invitation)."""
