"""§4 Customers and verification — POST /customers/{customerId}/kyc-link.

``{redirectUri}`` in, ``{kycUrl, expiresAt, provider, token?}`` out; each call returns a
fresh single-use link, earlier links stay valid, and the ``redirectUri`` is embedded in the
link. Using a link happens in the provider's hosted flow, which the adapter hook
``pytest_conformance_complete_hosted_kyc`` drives.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from urllib.parse import quote, quote_plus, unquote

import pytest

from conformance.contract import clauses
from conformance.contract.failures import check
from conformance.contract.markers import needs_adapter_hook
from conformance.customers.onboarding import contact_channels
from conformance.exchange.assertions import required_json
from conformance.ground import hookspecs
from conformance.ground.timestamps import parse_timestamp

pytestmark = [pytest.mark.resource("Customer"), pytest.mark.writes]

CLAUSE = clauses.CUSTOMERS_ENDPOINTS + " — POST /customers/{customerId}/kyc-link"
SKEW = timedelta(seconds=5)


def assert_link_issued(response, statement):
    __tracebackhide__ = True
    # the client has checked it against the kyc-link schema {kycUrl, expiresAt, provider}
    return required_json(response, CLAUSE, statement, status=(200, 201))


def a_customer_without_contact_verification(onboarding, kind="INDIVIDUAL"):
    create = onboarding.business if kind == "BUSINESS" else onboarding.individual
    customer = create("001")
    if contact_channels(customer):
        # channels the provider requires must be verified first (§3 Contact verification)
        pytest.skip(
            f"every {kind.lower()} the suite creates needs contact verification "
            f"({customer['contactVerification']}); see test_contact_verification.py"
        )
    return customer


@pytest.mark.requirement("KYC-LINK-RESPONSE", "CONTACT-VERIFICATION-ONLY-REQUIRED-CHANNELS")
def test_a_link_comes_with_its_url_expiry_and_provider(onboarding):
    customer = a_customer_without_contact_verification(onboarding)
    before = datetime.now(UTC)
    link = assert_link_issued(
        onboarding.kyc_link(customer["id"]),
        "a customer without contactVerification is issued a link: {kycUrl, expiresAt, provider}",
    )
    expires = parse_timestamp(link["expiresAt"])
    check(
        expires is not None and expires > before - SKEW,
        CLAUSE,
        "a fresh link is valid: its expiresAt lies ahead",
        observed=link["expiresAt"],
    )


@pytest.mark.requirement("KYC-LINK-RESPONSE")
def test_a_link_request_may_carry_an_idempotency_key(onboarding, advisory):
    customer = a_customer_without_contact_verification(onboarding)
    key = f"conformance-{uuid.uuid4()}"
    uri = onboarding.redirect_uri()
    first = assert_link_issued(
        onboarding.kyc_link(customer["id"], uri, key=key),
        "the optional Idempotency-Key header is accepted",
    )
    again = assert_link_issued(
        onboarding.kyc_link(customer["id"], uri, key=key),
        "the same Idempotency-Key with the same body is accepted again",
    )
    replayed = "the same link" if again["kycUrl"] == first["kycUrl"] else "a new link"
    advisory(
        f"{clauses.CUSTOMERS_ENDPOINTS} — kyc-link: repeating an Idempotency-Key with the "
        f"same body returned {replayed}; "
        "the interface does not show what a repeated key does for links"
    )


@pytest.mark.requirement("KYC-LINK-SERVES-KYB")
def test_a_business_is_issued_a_link_too(onboarding):
    customer = a_customer_without_contact_verification(onboarding, "BUSINESS")
    assert_link_issued(
        onboarding.kyc_link(customer["id"]),
        "kycUrl serves both KYC and KYB: a business customer is issued a link",
    )


@pytest.mark.requirement("KYC-LINK-FRESH-EACH-CALL")
def test_each_call_returns_a_fresh_link(onboarding):
    customer = a_customer_without_contact_verification(onboarding)
    uri = onboarding.redirect_uri()
    urls = [
        assert_link_issued(onboarding.kyc_link(customer["id"], uri), "a link is issued")["kycUrl"]
        for _ in range(3)
    ]
    check(
        len(set(urls)) == len(urls),
        CLAUSE,
        "each call returns a fresh link, different from the earlier ones",
        observed=urls,
    )


def embeds(url, value):
    """Whether ``url`` carries ``value`` raw or percent-encoded (once or twice)."""
    forms = {value, quote(value, safe=""), quote_plus(value), quote(quote(value, safe=""))}
    return any(form in url for form in forms) or value in unquote(unquote(url))


@pytest.mark.requirement("KYC-LINK-REDIRECT-EMBEDDED")
@needs_adapter_hook(hookspecs.pytest_conformance_complete_hosted_kyc)
def test_the_redirect_uri_is_embedded_in_the_link(onboarding, adapter, advisory):
    customer = a_customer_without_contact_verification(onboarding)
    uri = f"https://platform.example.com/kyc/return/{uuid.uuid4().hex}?step=done&lang=en"
    link = assert_link_issued(onboarding.kyc_link(customer["id"], uri), "a link is issued")
    if not embeds(link["kycUrl"], uri):
        advisory(
            f"{clauses.CUSTOMERS_ENDPOINTS} — kyc-link: the redirectUri was not found in kycUrl "
            "in any encoding the suite "
            "knows; how the link embeds it is not shown"
        )
    done = adapter.call(
        hookspecs.pytest_conformance_complete_hosted_kyc,
        customer_id=customer["id"],
        kyc_url=link["kycUrl"],
    )
    check(done is True, CLAUSE, "the issued link can be used for the hosted flow", observed=done)


@pytest.mark.requirement("KYC-LINK-SINGLE-USE")
@needs_adapter_hook(hookspecs.pytest_conformance_complete_hosted_kyc)
def test_earlier_links_stay_valid_and_every_link_is_single_use(onboarding, adapter, advisory):
    customer = a_customer_without_contact_verification(onboarding)
    earlier = assert_link_issued(onboarding.kyc_link(customer["id"]), "a link is issued")
    assert_link_issued(onboarding.kyc_link(customer["id"]), "a second link is issued")

    def use(link):
        return adapter.call(
            hookspecs.pytest_conformance_complete_hosted_kyc,
            customer_id=customer["id"],
            kyc_url=link["kycUrl"],
        )

    check(
        use(earlier) is True,
        CLAUSE,
        "earlier links stay valid after a new one is issued",
        observed="the hosted flow refused the earlier link",
    )
    try:
        reused = use(earlier)
    except Exception as exc:  # the adapter reports the refusal by raising
        advisory(f"the adapter refused the used link by raising: {exc}")
        reused = False
    check(
        reused is not True,
        CLAUSE,
        "every link is single-use: the hosted flow refuses a link already used",
        observed=reused,
    )
