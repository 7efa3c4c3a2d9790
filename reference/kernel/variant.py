"""The variant reference (``serve --variant``; SANDBOX.md, "The variant reference").

A fault-free reference that chose otherwise wherever the interface leaves the choice open,
all at once: a second correct server the suite must pass (issue 34). These are allowed
differences, never fault modes, so they live here and not in ``reference/faults/``.

- §7 shows no member for the error code: the variant carries it as ``errorCode``.
- §4 gives no status for ``POST /quotes/{quoteId}/execute``: the variant answers ``202``
  with the Quote (a wallet source's signature challenge stays the reference's).
- Rounding is not stated: the variant rounds its variable fee up, and takes one (10 bps
  within one currency), so a quote of 1 smallest unit cannot pay its fee.
- §4 shows no pagination: the variant lists oldest first, 10 a page, under its own names
  (``kernel/pages.py``, ``VARIANT``), and ignores ``customerId`` on ``GET /transactions``
  (§4 names ``cardId``, ``status`` and ``type`` only).
- §6 shows no delivery order: the variant delays each delivery at random and delivers an
  endpoint's events side by side, so they arrive in another order.
- §2 says a settled side "may carry" ``onChainTransaction``: the variant never does.
"""

from __future__ import annotations

import random
from typing import Any

ERROR_CODE_MEMBER = "errorCode"
EXECUTE_STATUS = 202
SAME_CURRENCY_FEE_BPS = 10
DELIVERY_DELAY_S = (0.0, 0.4)  # each delivery waits a random time in this range


def error_body(body: dict[str, Any]) -> dict[str, Any]:
    """The error envelope with its code under ``errorCode`` instead of ``code``."""
    renamed = {ERROR_CODE_MEMBER if key == "code" else key: value for key, value in body.items()}
    return renamed


def delivery_delay() -> float:
    """How long one delivery waits before it is posted."""
    return random.uniform(*DELIVERY_DELAY_S)
