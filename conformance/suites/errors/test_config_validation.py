"""§7 Errors — 400 INVALID_INPUT on PATCH /config, every invalid field named at once.

The checks of PATCH /config itself hold for every platform alike: they run on
``scratch_platform`` (the second platform when the profile has one), beside the tests of
the primary platform.
"""

from __future__ import annotations

import pytest
from hypothesis import given

from conformance.configuration.bodies import invalid_config_patches, known_currency_codes
from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.exchange.assertions import assert_invalid_input

pytestmark = pytest.mark.resource("PlatformConfig")

CLAUSE = clauses.ERRORS


@pytest.mark.writes
@pytest.mark.requirement("ERROR-400-INVALID-INPUT", "ERROR-400-ENVELOPE", "ERROR-400-ALL-FIELDS")
def test_two_invalid_fields_are_both_named(scratch_platform):
    client = scratch_platform
    body = {"umaDomain": "not a domain", "webhookEndpoint": "http://example.com/hooks"}
    response = client.patch("/config", json=body)
    assert_invalid_input(response, [("umaDomain",), ("webhookEndpoint",)])


@pytest.mark.writes
@pytest.mark.requirement("ERROR-400-ALL-FIELDS", "ERROR-400-ENVELOPE")
def test_generated_invalid_patches_name_every_invalid_field(scratch_platform, profile):
    """On the second platform when there is one (see ``scratch_platform``)."""
    client = scratch_platform
    codes = known_currency_codes(client.get("/config").json)
    names = profile.fee_config_names

    @given(case=invalid_config_patches(codes, names))
    def rejected(case):
        before = client.get("/config", validate=False).json
        response = client.patch("/config", json=case.body)
        assert_invalid_input(response, list(case.invalid))
        after = client.get("/config", validate=False).json
        check(
            after.get("umaDomain") == before.get("umaDomain")
            and after.get("supportedCurrencies") == before.get("supportedCurrencies"),
            CLAUSE,
            "a rejected PATCH /config changes nothing",
            expected=before.get("umaDomain"),
            observed=after.get("umaDomain"),
        )

    rejected()
