"""The reference adapter's hooks for internal-account states (SANDBOX.md,
"Internal-account states"); ``reference.adapter`` re-exports them.

The interface names the transitions (a compliance or fraud signal freezes an account, the
customer closes one, provisioning fails) but shows no trigger; the sandbox has one
sandbox-only endpoint per transition. Like the rest of the adapter these reach it over HTTP
with the profile's credentials and never import ``conformance``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from reference.adapter.transport import call as _call


def _transition(profile: Any, account_id: str, action: str) -> bool:
    _call(profile, "POST", f"/sandbox/internal-accounts/{quote(account_id, safe=':')}/{action}")
    return True


def pytest_conformance_freeze_internal_account(profile: Any, account_id: str) -> bool:
    """A compliance signal freezes the ``ACTIVE`` account:
    ``POST /sandbox/internal-accounts/{id}/freeze``; True once done."""
    return _transition(profile, account_id, "freeze")


def pytest_conformance_close_internal_account(profile: Any, account_id: str) -> bool:
    """The customer closes the ``ACTIVE`` account:
    ``POST /sandbox/internal-accounts/{id}/close``; True once done."""
    return _transition(profile, account_id, "close")


def pytest_conformance_fail_account_provisioning(profile: Any, account_id: str) -> bool:
    """Provisioning of the ``PENDING`` account fails:
    ``POST /sandbox/internal-accounts/{id}/fail-provisioning``; True once done."""
    return _transition(profile, account_id, "fail-provisioning")
