"""§9 Versioning — the version is a date carried in the base address path."""

from __future__ import annotations

import pytest

from conformance import INTERFACE_VERSION
from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.exchange.assertions import assert_status

pytestmark = pytest.mark.resource("Versioning")

CLAUSE = clauses.VERSIONING


@pytest.mark.requirement("VERSION-BASE-PATH")
def test_the_current_version_is_served_under_its_date_segment(client, profile):
    url = f"{profile.root_url}/{INTERFACE_VERSION}/config"
    response = client.get(url)
    assert_status(
        response,
        200,
        CLAUSE,
        f"the base address ends in the current version's date segment /{INTERFACE_VERSION}",
    )


@pytest.mark.requirement("VERSION-BASE-PATH")
def test_the_profile_base_url_carries_the_current_version(profile):
    check(
        profile.version_segment == INTERFACE_VERSION,
        CLAUSE,
        f"the current version is {INTERFACE_VERSION}, carried in the base address path",
        expected=INTERFACE_VERSION,
        observed=profile.version_segment,
        hint="point --target-url at the /2025-10-13 base address",
    )
