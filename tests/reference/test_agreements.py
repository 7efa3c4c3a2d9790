"""Agreements: the catalogue, recording consents (latest per type, other types untouched),
the deprecated ``endUserTermsConsent`` and ``GET /customers/end-user-terms``."""

from __future__ import annotations

import httpx
import pytest

from .customer_helpers import VERSIONS, consent, constraints, created, individual
from .reference_helpers import RunningSandbox

TERMS = "SERVICE_END_USER_TERMS"
PRIVACY = "SERVICE_PRIVACY_POLICY"
E_SIGN = "SERVICE_E_SIGN_CONSENT"


def legacy(**overrides: object) -> dict[str, object]:
    entry = consent(TERMS, **overrides)
    del entry["type"]
    return entry


def test_catalogue_lists_each_agreement_with_a_served_page(
    sandbox: RunningSandbox, client: httpx.Client
) -> None:
    response = client.get("/customers/agreements")
    assert response.status_code == 200
    data = response.json()["data"]
    assert {entry["type"]: entry["version"] for entry in data} == VERSIONS
    for entry in data:
        page = httpx.get(entry["url"])  # hosted outside the API: no credentials
        assert page.status_code == 200
        assert entry["type"] in page.text and page.headers["content-type"].startswith("text/html")


def test_deprecated_end_user_terms_endpoint(client: httpx.Client) -> None:
    terms = client.get("/customers/end-user-terms").json()
    [entry] = [e for e in client.get("/customers/agreements").json()["data"] if e["type"] == TERMS]
    assert terms == {"version": entry["version"], "url": entry["url"]}


def test_consents_on_create_and_the_mirrored_legacy_field(client: httpx.Client) -> None:
    body = individual(agreementConsents=[consent(TERMS), consent(PRIVACY)])
    customer = created(client.post("/customers", json=body))
    assert customer["agreementConsents"] == [consent(TERMS), consent(PRIVACY)]
    assert customer["endUserTermsConsent"] == legacy()


def test_patch_adds_a_type_and_keeps_the_others(client: httpx.Client) -> None:
    customer = created(client.post("/customers", json=individual()))
    url = f"/customers/{customer['id']}"
    first = client.patch(url, json={"agreementConsents": [consent(PRIVACY)]}).json()
    assert first["agreementConsents"] == [consent(PRIVACY)]
    assert "endUserTermsConsent" not in first  # one agreement never implies another
    later = consent(TERMS, acceptedAt="2025-02-01T00:00:00Z", ipAddress="2001:db8::1")
    second = client.patch(url, json={"agreementConsents": [later]}).json()
    assert second["agreementConsents"] == [later, consent(PRIVACY)]
    newer = consent(TERMS, acceptedAt="2025-03-01T00:00:00+00:00")
    third = client.patch(url, json={"agreementConsents": [newer]}).json()
    assert third["agreementConsents"] == [newer, consent(PRIVACY)]
    assert client.get(url).json()["agreementConsents"] == third["agreementConsents"]


def test_legacy_consent_is_the_end_user_terms_entry(client: httpx.Client) -> None:
    customer = created(client.post("/customers", json=individual()))
    url = f"/customers/{customer['id']}"
    client.patch(url, json={"agreementConsents": [consent(E_SIGN)]})
    patched = client.patch(url, json={"endUserTermsConsent": legacy()}).json()
    assert patched["agreementConsents"] == [consent(TERMS), consent(E_SIGN)]
    assert patched["endUserTermsConsent"] == legacy()


def test_both_forms_in_one_request_are_refused(client: httpx.Client) -> None:
    body = individual(endUserTermsConsent=legacy(), agreementConsents=[consent(PRIVACY)])
    assert constraints(client.post("/customers", json=body)) == {
        "endUserTermsConsent": "MUTUALLY_EXCLUSIVE"
    }
    customer = created(client.post("/customers", json=individual()))
    url = f"/customers/{customer['id']}"
    response = client.patch(url, json={"endUserTermsConsent": legacy(), "agreementConsents": []})
    assert constraints(response) == {"endUserTermsConsent": "MUTUALLY_EXCLUSIVE"}
    assert client.get(url).json()["agreementConsents"] == []


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        ([consent(TERMS), consent(TERMS)], {"agreementConsents[1].type": "DUPLICATE"}),
        ([{**consent(), "type": "OTHER_TERMS"}], {"agreementConsents[0].type": "ENUM"}),
        (
            [consent(termsVersion="1999-01-01")],
            {"agreementConsents[0].termsVersion": "TERMS_VERSION"},
        ),
        (
            [consent(acceptedAt="2025-01-02T05:04:05+02:00")],  # §Conventions: UTC strings
            {"agreementConsents[0].acceptedAt": "TIMESTAMP"},
        ),
        ([consent(ipAddress="999.1.1.1")], {"agreementConsents[0].ipAddress": "IP_ADDRESS"}),
        ([consent(acceptedAt="2025-01-02")], {"agreementConsents[0].acceptedAt": "TIMESTAMP"}),
        (
            [consent(acceptedAt="2025-01-02T00:00:60Z")],
            {"agreementConsents[0].acceptedAt": "TIMESTAMP"},
        ),
        (
            [{"type": PRIVACY}],
            {
                f"agreementConsents[0].{key}": "REQUIRED"
                for key in ("termsVersion", "acceptedAt", "ipAddress")
            },
        ),
        ("yes", {"agreementConsents": "TYPE_ARRAY"}),
    ],
)
def test_consent_entry_rules(
    client: httpx.Client, entries: object, expected: dict[str, str]
) -> None:
    response = client.post("/customers", json=individual(agreementConsents=entries))
    assert constraints(response) == expected


def test_legacy_consent_rules(client: httpx.Client) -> None:
    body = individual(endUserTermsConsent=legacy(termsVersion="old", ipAddress="x"))
    assert constraints(client.post("/customers", json=body)) == {
        "endUserTermsConsent.termsVersion": "TERMS_VERSION",
        "endUserTermsConsent.ipAddress": "IP_ADDRESS",
    }


def test_an_acceptance_time_is_utc_and_kept_as_sent(client: httpx.Client) -> None:
    """§Conventions: timestamps are UTC strings; one in the future is taken (no document can
    state a rule that moves with the clock)."""
    entry = consent(acceptedAt="2999-01-02T03:04:05+00:00")
    customer = created(client.post("/customers", json=individual(agreementConsents=[entry])))
    assert customer["agreementConsents"][0]["acceptedAt"] == "2999-01-02T03:04:05+00:00"
