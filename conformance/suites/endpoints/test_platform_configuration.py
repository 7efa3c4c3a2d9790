"""§4 Platform configuration — GET /config and PATCH /config.

The checks of PATCH /config itself hold for every platform alike: they run on
``scratch_platform`` (the second platform when the profile has one), beside the tests of
the primary platform.
"""

from __future__ import annotations

import pytest
from hypothesis import given

from conformance.configuration.bodies import (
    READ_ONLY_CURRENCY_KEYS,
    editable_snapshot,
    fee_config,
    known_currency_codes,
    valid_config_patches,
)
from conformance.contract import clauses
from conformance.contract.failures import check, fail
from conformance.exchange.assertions import assert_invalid_input, required_json
from conformance.exchange.echo import echoes

pytestmark = pytest.mark.resource("PlatformConfig")

CLAUSE = clauses.PLATFORM_CONFIGURATION_ENDPOINTS


def _currency_view(entries):
    """Currency entries keyed by code, without the read-only and server-added keys."""
    keys = ("currencyCode", "minAmount", "maxAmount")
    view = {}
    for entry in entries or []:
        fields = sorted(
            (f.get("name"), f.get("mandatory")) for f in entry.get("requiredCounterpartyFields", [])
        )
        view[entry.get("currencyCode")] = (tuple(entry.get(k) for k in keys), tuple(fields))
    return view


def assert_echoed(sent, config, exchange, amounts=()):
    """Every field of an accepted PATCH reads back as sent: compared field by field, so
    objects may carry more fields than were sent (``amounts``: keys whose integer may read
    back as a money object, see :mod:`conformance.exchange.echo`)."""
    __tracebackhide__ = True
    for name, value in sent.items():
        if name == "supportedCurrencies":
            same = _currency_view(config.get(name)) == _currency_view(value)
        else:
            same = echoes(value, config.get(name), amounts=amounts)
        if not same:
            fail(
                CLAUSE,
                f"PATCH /config returns the PlatformConfig with the accepted {name}",
                expected=value,
                observed=config.get(name),
                exchange=exchange,
            )


@pytest.mark.requirement("CONFIG-GET-RESOURCE")
def test_get_config_returns_the_platform_config(client):
    response = client.get("/config")
    check(
        response.status == 200,
        CLAUSE,
        "GET /config returns the PlatformConfig",
        expected=200,
        observed=response.status,
        exchange=response.exchange,
    )


@pytest.mark.writes
@pytest.mark.requirement("CONFIG-PATCH-FIELDS")
def test_valid_patches_are_accepted_echoed_and_kept(scratch_platform, webhook_sink_url):
    """On the second platform when there is one: PATCH /config holds for every platform, and
    there the primary platform's tests run on beside it."""
    client = scratch_platform
    known = known_currency_codes(client.get("/config").json)

    @given(body=valid_config_patches(known, webhook_sink_url))
    def accepted(body):
        response = client.patch("/config", json=body)
        changed = required_json(
            response,
            CLAUSE,
            "PATCH /config accepts any of umaDomain, webhookEndpoint, supportedCurrencies "
            "with valid values",
            status=None,  # §4 gives PATCH no status: any 2xx with the resource
        )
        assert_echoed(body, changed, response.exchange)
        again = client.get("/config")
        assert_echoed(body, again.json, again.exchange)

    accepted()


@pytest.mark.writes
@pytest.mark.requirement("CONFIG-PROVIDER-FIELDS-READONLY")
def test_provider_required_customer_fields_are_read_only(scratch_platform):
    client = scratch_platform
    config = client.get("/config").json
    entries = [
        {k: v for k, v in e.items() if k not in READ_ONLY_CURRENCY_KEYS}
        for e in config.get("supportedCurrencies") or []
    ]
    if not entries:
        pytest.skip("the platform lists no supportedCurrencies entry to patch")
    seen = []
    for attempt in ([], ["TAX_ID", "BUSINESS_NAME", "EMAIL", "PHONE_NUMBER"]):
        body = {
            "supportedCurrencies": [
                dict(e, providerRequiredCustomerFields=attempt) for e in entries
            ]
        }
        response = client.patch("/config", json=body)
        if response.status == 400:
            continue  # refusing a read-only field is a valid answer
        changed = required_json(
            response,
            CLAUSE,
            "PATCH /config with a read-only field either ignores it or refuses it with 400",
            status=None,  # §4 gives PATCH no status: any 2xx with the resource
        )
        seen.append(
            {e.get("currencyCode"): e.get("providerRequiredCustomerFields")
             for e in changed.get("supportedCurrencies", [])}
        )  # fmt: skip
    if len(seen) == 2:
        check(
            seen[0] == seen[1],
            clauses.PLATFORM_CONFIG,
            "providerRequiredCustomerFields is read-only: it must not take the value a PATCH sends",
            expected=seen[0],
            observed=seen[1],
        )


@pytest.mark.writes
@pytest.mark.requirement("CONFIG-PER-PLATFORM")
def test_each_platform_sees_only_its_own_configuration(client, second_client, scratch_platform):
    # only the second platform's configuration changes (``scratch_platform`` is that
    # platform here, restored afterwards): the primary's tests run beside this one
    first_before = client.get("/config").json
    second_before = second_client.get("/config").json
    check(
        first_before.get("id") != second_before.get("id"),
        CLAUSE,
        "two platforms have two configurations",
        observed=(first_before.get("id"), second_before.get("id")),
    )
    domain = f"isolation-{second_before.get('id', 'x')[-8:].lower()}.example.com"
    changed = second_client.patch("/config", json={"umaDomain": domain})
    check(200 <= changed.status < 300, CLAUSE, "PATCH /config by the second platform is accepted",
          observed=changed.status, exchange=changed.exchange)  # fmt: skip
    first_after = client.get("/config")
    check(
        first_after.json.get("umaDomain") == first_before.get("umaDomain"),
        CLAUSE,
        "a platform's PATCH /config must not change another platform's configuration",
        expected=first_before.get("umaDomain"),
        observed=first_after.json.get("umaDomain"),
        exchange=first_after.exchange,
    )


@pytest.mark.writes
@pytest.mark.requirement("CONFIG-PATCH-PARTIAL")
def test_patch_changes_only_the_fields_it_sends(scratch_platform, profile):
    client = scratch_platform
    current = client.get("/config").json
    # first move the other fields off their current values, so a reset would show
    moved = {"feeConfigs": [fee_config(profile.fee_config_names, "USD", bps=37, fixed=11)]}
    currencies = editable_snapshot(current).get("supportedCurrencies") or []
    if currencies:
        moved["supportedCurrencies"] = [
            {**entry, "maxAmount": entry["maxAmount"] + 7}
            if isinstance(entry.get("maxAmount"), int) else entry
            for entry in currencies
        ]  # fmt: skip
    fixed = {profile.fee_config_names["fixed"]}
    setup = client.patch("/config", json=moved)
    assert_echoed(moved, setup.json, setup.exchange, fixed)
    before = setup.json
    domain = "partial-" + before.get("id", "x")[-8:].lower() + ".example.com"
    response = client.patch("/config", json={"umaDomain": domain})
    assert_echoed({"umaDomain": domain}, response.json, response.exchange)
    # what was set reads back as set; the other fields keep what the answer before showed,
    # compared field by field (a server may add fields, e.g. to feeConfigs entries)
    kept = {**{k: before.get(k) for k in ("webhookEndpoint", "cardTokenization2faConfig")}, **moved}
    for name in (
        "webhookEndpoint",
        "supportedCurrencies",
        "feeConfigs",
        "cardTokenization2faConfig",
    ):
        if name == "supportedCurrencies":
            same = _currency_view(response.json.get(name)) == _currency_view(before.get(name))
        else:
            same = echoes(kept.get(name), response.json.get(name), amounts=fixed)
        check(
            same,
            CLAUSE,
            f"PATCH /config with umaDomain alone leaves {name} as it was",
            expected=before.get(name),
            observed=response.json.get(name),
            exchange=response.exchange,
        )


@pytest.mark.writes
@pytest.mark.requirement("CONFIG-PROXY-SUBDOMAIN-ASSIGNED")
def test_proxy_uma_subdomain_is_assigned_by_the_service(scratch_platform):
    client = scratch_platform
    before = client.get("/config").json.get("proxyUmaSubdomain")
    response = client.patch("/config", json={"proxyUmaSubdomain": "chosen-by-the-platform"})
    if response.status == 400:
        return  # refusing to change an assigned field is a valid answer
    statement = "proxyUmaSubdomain is assigned by the service; PATCH /config does not set it"
    changed = required_json(
        response, clauses.PLATFORM_CONFIG, statement, status=None
    )  # §4 gives PATCH no status: any 2xx with the resource
    check(
        changed.get("proxyUmaSubdomain") == before,
        clauses.PLATFORM_CONFIG,
        statement,
        expected=before,
        observed=(response.status, response.field("proxyUmaSubdomain")),
        exchange=response.exchange,
    )


@pytest.mark.writes
@pytest.mark.requirement("CONFIG-WEBHOOK-HTTPS")
@pytest.mark.parametrize(
    "endpoint", ["http://example.com/hooks", "ftp://example.com/hooks", "not a url"]
)
def test_webhook_endpoint_must_be_https(scratch_platform, endpoint):
    client = scratch_platform
    response = client.patch("/config", json={"webhookEndpoint": endpoint})
    assert_invalid_input(response, [("webhookEndpoint",)])
