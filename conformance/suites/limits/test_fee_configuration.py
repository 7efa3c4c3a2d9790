"""§8 Limits — platform fee configuration applies to USD source currency only.

The checks of PATCH /config itself hold for every platform alike: they run on
``scratch_platform`` (the second platform when the profile has one), beside the tests of
the primary platform.
"""

from __future__ import annotations

import pytest

from conformance.configuration.bodies import fee_config
from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.exchange.assertions import assert_invalid_input, required_json
from conformance.exchange.echo import echoes

pytestmark = pytest.mark.resource("PlatformConfig")

CLAUSE = clauses.LIMITS


@pytest.mark.writes
@pytest.mark.requirement("CONFIG-FEES-USD-ONLY")
@pytest.mark.parametrize("currency", ["EUR", "GBP", "MXN"])
def test_fee_configuration_for_another_source_currency_is_rejected(
    scratch_platform, profile, currency
):
    client = scratch_platform
    names = profile.fee_config_names
    response = client.patch("/config", json={"feeConfigs": [fee_config(names, currency)]})
    assert_invalid_input(response, [("feeConfigs", 0, names["currency"])], clause=CLAUSE)


@pytest.mark.writes
@pytest.mark.requirement("CONFIG-FEES-USD-ONLY", "CONFIG-FEE-CONFIGS-SHAPE")
def test_fee_configuration_for_usd_is_accepted(scratch_platform, profile):
    """The positive control: the same entry in USD is accepted (names from the profile)."""
    client = scratch_platform
    names = profile.fee_config_names
    fees = [fee_config(names, "USD")]
    response = client.patch("/config", json={"feeConfigs": fees})
    changed = required_json(
        response,
        CLAUSE,
        "a USD fee configuration (variable basis points and a fixed amount) is accepted; "
        f"field names from the profile: {names}",
        status=None,  # §4 gives PATCH no status: any 2xx with the resource
    )
    # field by field: entries may carry more fields, and the fixed amount may read back as
    # a money object (§2 says only "a fixed amount")
    check(
        echoes(fees, changed.get("feeConfigs"), amounts={names["fixed"]}),
        clauses.PLATFORM_CONFIG,
        "feeConfigs holds the standing platform fee as configured",
        expected=fees,
        observed=changed.get("feeConfigs"),
        exchange=response.exchange,
        requirement="CONFIG-FEE-CONFIGS-SHAPE",
    )
