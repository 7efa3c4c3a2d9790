"""Signed webhook events (§6): building, signing, the outbox and delivery."""
