"""Signed webhooks (§6): the sink that receives them and the checks every event must pass."""
