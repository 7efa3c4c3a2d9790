"""Agents and their bearer tokens (§4, §5 HTTP Bearer) as the suite reaches them."""
