"""Webhooks delivered as the service delivers them, to a platform's receiver (``conformance
receiver``): the signing key, realistic event bodies, the forged signatures a receiver must
refuse, and the sending of one delivery."""
