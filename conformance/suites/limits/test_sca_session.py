"""§8 Limits, §5 Authentication — an SCA session lasts 180 days: ``sessionExpiresAt`` is
180 days after the login completes (by the target's clock, with a small tolerance)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.ground.timestamps import parse_timestamp
from conformance.sca.flows import LOGIN_HOOK

pytestmark = [pytest.mark.resource("Quote"), pytest.mark.writes]

CLAUSE = clauses.LIMITS
SESSION = timedelta(days=180)
TOLERANCE = timedelta(minutes=10)


@needs_adapter_hook(LOGIN_HOOK)
@pytest.mark.requirement("LIMIT-SCA-SESSION-180-DAYS")
def test_an_sca_session_lasts_180_days(sca):
    customer = sca.customer(("EUR",))
    session = sca.login_ok(customer["id"])
    now = sca.quotes.server_time() or datetime.now(UTC)
    expires = parse_timestamp(session.get("sessionExpiresAt"))
    check(
        expires is not None and abs(expires - now - SESSION) <= TOLERANCE,
        CLAUSE,
        "the SCA session lasts 180 days: sessionExpiresAt is 180 days after the login",
        expected=f"{(now + SESSION).isoformat()} (± {TOLERANCE})",
        observed=session.get("sessionExpiresAt"),
    )
