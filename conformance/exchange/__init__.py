"""Reaching the target: the one client, per-request deadlines, bounded decoding of answers,
rate limiting, turning malformed answers into clause failures, and per-exchange evidence."""
