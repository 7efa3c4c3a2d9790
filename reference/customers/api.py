"""Customer endpoints (§4 Customers and verification): create, read, update, and the
agreement catalogue (``GET /customers/agreements`` and the deprecated
``GET /customers/end-user-terms``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from starlette.responses import JSONResponse, Response

from reference.customers import agreements, kyc_rules
from reference.customers import events as customer_events
from reference.customers.store import (
    UNVERIFIED,
    Customer,
    insert,
    load_or_404,
    new_customer_id,
    render,
    save,
)
from reference.customers.validation import validate_create, validate_patch
from reference.kernel import currencies, pages
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam

PATCH_ANSWER = seam(
    "customers.patch_answer",
    "the Customer body PATCH /customers/{customerId} answers, as stored (context: sent, the"
    " request body)",
)
RENAMED = seam(
    "customers.renamed",
    "the customer a PATCH that changed fullName is about to store; renaming does not"
    " re-derive its status (context: settings)",
)


def _supported_codes(request: ApiRequest) -> set[str]:
    """The codes a customer's ``currencies`` may list: every currency the sandbox knows. The
    platform's supportedCurrencies governs what moves (quotes), not the profile: a list that
    changes with the configuration could not be declared for the field."""
    return set(currencies.CURRENCIES)


def _capture_suffix(customer: Customer, request: ApiRequest) -> Customer:
    """Read the sandbox suffix if it is not yet read and its source is now known; on
    regulated or skip-paperwork platforms an individual resolves at that moment."""
    if customer.suffix is not None:
        return customer
    source = kyc_rules.suffix_source(customer.customer_type, customer.fields)
    if source is None:
        return customer
    suffix = kyc_rules.suffix_of(source)
    settings = request.services.settings
    status = kyc_rules.status_on_capture(customer.customer_type, customer.status, suffix, settings)
    return replace(customer, suffix=suffix, status=status)


def _same(old: dict[str, Any], new: dict[str, Any], key: str) -> bool:
    return old.get(key) == new.get(key)


def create_customer(request: ApiRequest) -> Response:
    """``POST /customers`` → 201 Customer."""
    services = request.services
    valid = validate_create(request.body, _supported_codes(request), services.settings)
    draft = Customer(
        id=new_customer_id(),
        platform_id=request.platform.id,
        customer_type=valid.customer_type,
        fields=valid.fields,
        status=UNVERIFIED,
        suffix=None,
        consents=agreements.record({}, valid.consents, services.settings),
    )
    draft = _capture_suffix(draft, request)
    with services.db.transaction():
        customer = insert(services.db, draft)
        customer_events.announce(services.webhooks, services.settings, UNVERIFIED, customer)
    return JSONResponse(render(customer), status_code=201)


def get_customer(request: ApiRequest) -> Response:
    """``GET /customers/{customerId}``."""
    customer_id = request.path_params["customerId"]
    return JSONResponse(render(load_or_404(request.services.db, request.platform.id, customer_id)))


def patch_customer(request: ApiRequest) -> Response:
    """``PATCH /customers/{customerId}``: change the fields sent, record consents."""
    services = request.services
    settings = services.settings
    db = services.db
    with db.transaction():
        customer = load_or_404(db, request.platform.id, request.path_params["customerId"])
        valid = validate_patch(request.body, customer, _supported_codes(request), settings)
        before = customer.status
        old = customer.fields
        updated = replace(
            customer,
            fields=valid.fields,
            consents=agreements.record(customer.consents, valid.consents, settings),
            # a changed email or phone number must be verified again (contact verification)
            email_verified=customer.email_verified and _same(old, valid.fields, "email"),
            phone_verified=customer.phone_verified and _same(old, valid.fields, "phoneNumber"),
        )
        updated = _capture_suffix(updated, request)
        renamed = old.get("fullName") != valid.fields.get("fullName")
        if renamed:
            updated = settings.seams.apply(RENAMED, updated, settings=settings)
        stored = save(db, updated)
        customer_events.announce(services.webhooks, settings, before, stored)
    return JSONResponse(settings.seams.apply(PATCH_ANSWER, render(stored), sent=request.body))


def list_agreements(request: ApiRequest) -> Response:
    """``GET /customers/agreements?limit=&cursor=`` → a page of ``{type, version, url}``."""
    answer = pages.page(
        request.services.settings,
        request.query,
        agreements.AGREEMENTS,
        record_id=lambda a: a.type,
        render=lambda a: a.as_json(request.root_url),
    )
    return JSONResponse(answer)


def end_user_terms(request: ApiRequest) -> Response:
    """Deprecated ``GET /customers/end-user-terms`` → ``{version, url}`` (§9 Versioning)."""
    terms = agreements.BY_TYPE[agreements.END_USER_TERMS]
    return JSONResponse({"version": terms.version, "url": terms.url(request.root_url)})


# The fixed paths come before /customers/{customerId}, which would otherwise match them.
ROUTES = [
    api_route("/customers/agreements", Operation("GET", list_agreements)),
    api_route("/customers/end-user-terms", Operation("GET", end_user_terms)),
    api_route("/customers", Operation("POST", create_customer, body=True)),
    api_route(
        "/customers/{customerId}",
        Operation("GET", get_customer),
        Operation("PATCH", patch_customer, body=True),
    ),
]
