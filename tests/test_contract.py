"""The map from endpoint and status to the schema a response (or request) must follow."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.contract import endpoint_schemas as contract
from conformance.contract.endpoint_schemas import (
    ENDPOINTS,
    SchemaRef,
    list_items,
    match_endpoint,
    normalize_path,
    request_schema,
    response_schema,
    webhook_schema,
)
from conformance.contract.schemas import default_registry

CUSTOMER = "Customer:3f2b8c1e-4a5d-4e6f-8a9b-0c1d2e3f4a5b"
QUOTE = "Quote:3f2b8c1e-4a5d-4e6f-8a9b-0c1d2e3f4a5b"
ACCOUNT = "InternalAccount:3f2b8c1e-4a5d-4e6f-8a9b-0c1d2e3f4a5b"


@pytest.mark.parametrize(
    ("method", "path", "status", "name", "is_list", "endpoint"),
    [
        ("GET", "/config", 200, "platform-config", False, "/config"),
        ("PATCH", "/config", 200, "platform-config", False, "/config"),
        ("get", "/config/", 200, "platform-config", False, "/config"),
        (
            "GET",
            "https://api.example/v1/2025-10-13/config?x=1",
            200,
            "platform-config",
            False,
            "/config",
        ),
        ("GET", "/2025-10-13/config", 200, "platform-config", False, "/config"),
        ("POST", "/customers", 201, "customer", False, "/customers"),
        ("GET", f"/customers/{CUSTOMER}", 200, "customer", False, "/customers/{customerId}"),
        ("PATCH", f"/customers/{CUSTOMER}", 200, "customer", False, "/customers/{customerId}"),
        (
            "GET",
            "/customers/Customer%3A3f2b8c1e",
            200,
            "customer",
            False,
            "/customers/{customerId}",
        ),
        (
            "POST",
            f"/customers/{CUSTOMER}/kyc-link",
            200,
            "kyc-link",
            False,
            "/customers/{customerId}/kyc-link",
        ),
        ("GET", "/customers/agreements", 200, "agreements", False, "/customers/agreements"),
        (
            "GET",
            "/customers/end-user-terms",
            200,
            "end-user-terms",
            False,
            "/customers/end-user-terms",
        ),
        ("POST", "/beneficial-owners", 201, "beneficial-owner", False, "/beneficial-owners"),
        ("POST", "/documents", 201, "document", False, "/documents"),
        ("POST", "/verifications", 200, "verification", False, "/verifications"),
        (
            "GET",
            f"/verifications?customerId={CUSTOMER}",
            200,
            "verification",
            False,
            "/verifications",
        ),
        (
            "POST",
            "/customers/external-accounts",
            201,
            "external-account",
            False,
            "/customers/external-accounts",
        ),
        (
            "GET",
            f"/customers/internal-accounts?customerId={CUSTOMER}",
            200,
            "internal-account",
            True,
            "/customers/internal-accounts",
        ),
        ("POST", "/internal-accounts", 201, "internal-account", False, "/internal-accounts"),
        ("POST", "/internal-accounts", 200, "internal-account", False, "/internal-accounts"),
        (
            "PATCH",
            f"/internal-accounts/{ACCOUNT}",
            200,
            "internal-account",
            False,
            "/internal-accounts/{id}",
        ),
        ("POST", "/quotes", 201, "quote", False, "/quotes"),
        ("POST", f"/quotes/{QUOTE}/execute", 200, "quote", False, "/quotes/{quoteId}/execute"),
        ("POST", f"/quotes/{QUOTE}/authorize", 200, "quote", False, "/quotes/{quoteId}/authorize"),
        (
            "GET",
            "/transactions?status=COMPLETED&type=OUTGOING",
            200,
            "transaction-list-item",
            True,
            "/transactions",
        ),
        ("POST", "/transfer-in", 200, "transaction", False, "/transfer-in"),
        ("POST", "/transfer-out", 201, "transaction", False, "/transfer-out"),
        ("POST", "/sandbox/send", 200, "transaction", False, "/sandbox/send"),
        (
            "POST",
            f"/sandbox/internal-accounts/{ACCOUNT}/fund",
            200,
            "internal-account",
            False,
            "/sandbox/internal-accounts/{accountId}/fund",
        ),
    ],
)
def test_success_responses_map_to_their_resource(
    method: str, path: str, status: int, name: str, is_list: bool, endpoint: str
) -> None:
    ref = response_schema(method, path, status, {})
    assert ref is not None
    assert (ref.name, ref.is_list, ref.endpoint) == (name, is_list, endpoint)
    assert ref.clause == f"§4 {match_endpoint(method, path).section} — {method.upper()} {endpoint}"  # type: ignore[union-attr]


def test_clause_text_names_the_part_heading_and_endpoint() -> None:
    ref = response_schema("GET", "/config", 200, {})
    assert ref == SchemaRef(
        "platform-config", False, "/config", "§4 Platform configuration — GET /config", "GET"
    )


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("POST", f"/customers/{CUSTOMER}/verify-email", 200),  # response shape not shown
        ("POST", f"/customers/{CUSTOMER}/verify-phone/confirm", 200),
        ("GET", "/quotes", 200),  # no such endpoint in §4
        ("DELETE", "/config", 200),
        ("GET", "/stablecoins", 200),
        ("GET", "/config", 204),  # no body
        ("GET", "/config", 302),
        ("GET", "/config", 101),
        ("PUT", "/customers", 200),
    ],
)
def test_responses_without_a_shown_shape_have_no_schema(
    method: str, path: str, status: int
) -> None:
    assert response_schema(method, path, status, {}) is None


@pytest.mark.parametrize(
    ("status", "body", "name"),
    [
        (
            400,
            {"status": 400, "code": "INVALID_INPUT", "details": {"errors": []}},
            "errors/error-400",
        ),
        (400, {"code": "TRANSACTION_SIZE_LIMIT_EXCEEDED"}, "errors/error"),
        (400, {"message": "no code"}, "errors/error"),
        (400, "not even an object", "errors/error"),
        (400, None, "errors/error"),
        (401, {"code": "UNAUTHORIZED", "reason": "Invalid OTP code"}, "errors/error-401"),
        (401, {}, "errors/error-401"),
        (404, {"code": "NOT_FOUND"}, "errors/error"),
        (409, {"code": "SCA_SESSION_REQUIRED"}, "errors/error"),
        (422, {"code": "DOCUMENT_REJECTED"}, "errors/error"),
        (423, {"code": "ACCOUNT_LOCKED"}, "errors/error"),
        (429, {"code": "DAILY_VOLUME_LIMIT_EXCEEDED"}, "errors/error"),
        (500, {}, "errors/error"),
        (503, {}, "errors/error"),
    ],
)
def test_error_responses_map_by_status_and_code(status: int, body: object, name: str) -> None:
    ref = response_schema("POST", f"/quotes/{QUOTE}/execute", status, body)
    assert ref is not None
    assert (ref.name, ref.is_list, ref.endpoint) == (name, False, "/quotes/{quoteId}/execute")
    assert "§7 Errors" in ref.clause
    assert "POST /quotes/{quoteId}/execute" in ref.clause


def test_errors_of_unknown_paths_still_follow_the_error_envelope() -> None:
    ref = response_schema("GET", "/2025-10-13/nowhere/?a=b", 404, {"code": "NOT_FOUND"})
    assert ref is not None
    assert (ref.name, ref.endpoint) == ("errors/error", "/nowhere")
    assert ref.clause == "§7 Errors — 404 NOT_FOUND on GET /nowhere"


@pytest.mark.parametrize(
    ("method", "path", "name"),
    [
        ("POST", "/customers", "requests/customer-create"),
        ("PATCH", f"/customers/{CUSTOMER}", "requests/customer-update"),
        ("PATCH", "/config", "requests/config-patch"),
        ("POST", "/beneficial-owners", "requests/beneficial-owner-create"),
        ("POST", "/customers/external-accounts", "requests/external-account-create"),
        ("POST", "/internal-accounts", "requests/internal-account-create"),
        ("POST", f"/customers/{CUSTOMER}/kyc-link", "requests/kyc-link-create"),
        ("POST", "/verifications", "requests/verification-create"),
        ("POST", "/quotes?x=1", "requests/quote-create"),
        ("POST", f"/quotes/{QUOTE}/authorize", "requests/quote-authorize"),
        ("POST", "/sandbox/send", "requests/sandbox-send"),
        ("POST", f"/sandbox/internal-accounts/{ACCOUNT}/fund", "requests/sandbox-fund"),
        ("POST", f"/customers/{CUSTOMER}/verify-email/confirm", "requests/contact-confirm"),
        ("POST", f"/customers/{CUSTOMER}/verify-phone/confirm", "requests/contact-confirm"),
        ("POST", "/documents", None),  # multipart form
        ("POST", f"/quotes/{QUOTE}/execute", None),
        ("POST", "/transfer-in", None),  # "request and response shapes unchanged": not shown
        ("GET", "/config", None),
        ("GET", "/unknown", None),
    ],
)
def test_request_schemas(method: str, path: str, name: str | None) -> None:
    assert request_schema(method, path) == name


def test_every_mapped_schema_exists_in_the_registry() -> None:
    names = set(default_registry().names())
    for endpoint in ENDPOINTS:
        assert endpoint.response is None or endpoint.response in names, endpoint
        assert endpoint.request is None or endpoint.request in names, endpoint
    for name in ("errors/error", "errors/error-400", "errors/error-401"):
        assert name in names


def _concrete(template: str) -> str:
    return re.sub(r"\{[^}]+\}", "Thing:3f2b8c1e-4a5d-4e6f-8a9b-0c1d2e3f4a5b", template)


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=lambda e: f"{e.method} {e.template}")
def test_every_endpoint_is_reached_by_its_own_paths(endpoint: contract.Endpoint) -> None:
    assert match_endpoint(endpoint.method, _concrete(endpoint.template)) is endpoint
    assert endpoint.clause.startswith("§4 ")


def test_endpoints_are_unique() -> None:
    keys = [(e.method, e.template) for e in ENDPOINTS]
    assert len(keys) == len(set(keys))


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("/config", "/config"),
        ("config", "/config"),
        ("/config/", "/config"),
        ("/config?a=1#frag", "/config"),
        ("https://h.example/2025-10-13/customers/x", "/customers/x"),
        ("https://h.example/api/2025-10-13/quotes?x=2025-10-13/", "/quotes"),
        ("/2025-10-13", "/"),
        ("/", "/"),
        ("", "/"),
    ],
)
def test_normalize_path(raw: str, expected: str) -> None:
    assert normalize_path(raw) == expected


@pytest.mark.parametrize(
    ("body", "items"),
    [
        ([1, 2], [1, 2]),
        ([], []),
        ({"data": [1]}, [1]),
        ({"accounts": [1], "nextCursor": None, "hasMore": False}, [1]),
        ({"items": [1], "warnings": []}, [1]),
        ({"data": [1], "items": [2]}, [1]),
        ({"a": [1], "b": [2]}, None),
        ({"count": 0}, None),
        ("text", None),
        (None, None),
        (3, None),
    ],
)
def test_list_items(body: object, items: list[object] | None) -> None:
    assert list_items(body) == items


@given(
    key=st.text(min_size=1, max_size=12),
    items=st.lists(st.integers(), max_size=5),
    extras=st.dictionaries(
        st.text(min_size=1, max_size=8), st.none() | st.integers() | st.text(max_size=5), max_size=4
    ),
)
def test_an_object_holding_one_array_holds_the_list(
    key: str, items: list[int], extras: dict[str, object]
) -> None:
    body = {**{k: v for k, v in extras.items() if k != key}, key: items}
    assert list_items(body) == items


@pytest.mark.parametrize(
    ("body", "name"),
    [
        ({"test": True, "type": "TEST", "timestamp": "t", "webhookId": "w"}, "webhooks/test-event"),
        ({"type": "TEST"}, "webhooks/test-event"),
        ({"type": "OUTGOING_PAYMENT.COMPLETED"}, "webhooks/payment-event"),
        ({"type": "INCOMING_PAYMENT.REFUND_FAILED"}, "webhooks/payment-event"),
        ({"type": "CARD_TRANSACTION.SETTLED"}, "webhooks/card-transaction-event"),
        ({"type": "CARD_TRANSACTION.REFUNDED"}, "webhooks/card-transaction-event"),
        ({"type": "CUSTOMER.KYC_APPROVED"}, "webhooks/envelope"),
        ({"type": "EXTERNAL_ACCOUNT.STATUS_UPDATED"}, "webhooks/envelope"),
        ({}, "webhooks/envelope"),
        ([], "webhooks/envelope"),
    ],
)
def test_webhook_schema_by_type(body: object, name: str) -> None:
    ref = webhook_schema(body)
    assert ref.name == name
    assert ref.clause.startswith("§6 Events")


def test_list_responses_validate_item_by_item() -> None:
    registry = default_registry()
    account = {"id": "InternalAccount:3f2b8c1e-4a5d-4e6f-8a9b-0c1d2e3f4a5b", "status": "ACTIVE"}
    for body in (
        [account],
        {"data": [account]},
        {"accounts": [account, {**account, "status": "X"}]},
    ):
        ref = response_schema("GET", "/customers/internal-accounts", 200, body)
        assert ref is not None and ref.is_list
        items = list_items(body)
        assert items is not None
        problems = [v for item in items for v in registry.violations(ref.name, item)]
        assert [(v.path, v.keyword) for v in problems] == (
            [("status", "enum")] if len(items) == 2 else []
        )


@pytest.mark.parametrize(
    ("method", "path", "resource"),
    [
        ("POST", "/auth/credentials", "wallet-credential"),
        ("POST", "/auth/credentials/Credential:1/verify", "wallet-verify"),
        ("DELETE", "/auth/credentials/Credential:1", None),
        ("DELETE", "/auth/sessions/Session:1", "wallet-session"),
        ("POST", "/internal-accounts/InternalAccount:1/export", None),
        ("PATCH", "/internal-accounts/InternalAccount:1", "internal-account"),
        ("POST", "/quotes/Quote:1/execute", "quote"),
    ],
)
def test_a_202_on_a_wallet_signed_endpoint_is_the_signature_challenge(method, path, resource):
    ref = contract.response_schema(method, path, 202, {"payloadToSign": "x", "requestId": "r"})
    assert ref is not None and ref.name == "wallet-signature-challenge"
    assert ref.clause.startswith("§5 Authentication")
    done = contract.response_schema(method, path, 200, {})
    assert (done.name if done else None) == resource


# -- schema choice by method, path template and status (no false failures where the
#    interface is open) ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "template"),
    [
        ("GET", "/customers/external-accounts", None),  # not GET /customers/{customerId}
        ("PATCH", "/customers/agreements", None),
        ("POST", "/customers/external-accounts", "/customers/external-accounts"),
        ("GET", "/customers/agreements", "/customers/agreements"),
        ("GET", "/customers/Customer:1", "/customers/{customerId}"),
        (
            "GET",
            "/2025-10-13/customers/internal-accounts?customerId=x",
            "/customers/internal-accounts",
        ),
        ("DELETE", "/customers/Customer:1", None),
        ("GET", "/internal-accounts/InternalAccount:1", None),
    ],
)
def test_the_path_template_is_chosen_before_the_method(method, path, template):
    endpoint = contract.match_endpoint(method, path)
    assert (endpoint.template if endpoint else None) == template


def test_literal_segments_beat_parameters_at_the_first_difference():
    literal = contract.Endpoint("GET", "/a/b/{x}", "s", None)
    parameter = contract.Endpoint("GET", "/a/{y}/c", "s", None)
    assert literal.literal_rank > parameter.literal_rank


def test_an_undeclared_path_is_validated_by_no_resource_schema():
    assert contract.response_schema("GET", "/customers/external-accounts", 200, {}) is None
    error = contract.response_schema("GET", "/customers/external-accounts", 404, {})
    assert error is not None and error.name == "errors/error"


@pytest.mark.parametrize("status", [202, 203, 206])
def test_only_200_and_201_answers_follow_the_resource_schema(status):
    assert contract.response_schema("POST", "/quotes", status, {}) is None
    assert contract.response_schema("POST", "/quotes", 201, {}).name == "quote"
    assert contract.response_schema("GET", "/config", 200, {}).name == "platform-config"


def test_a_202_challenge_on_patch_internal_account_is_not_the_internal_account():
    body = {"payloadToSign": '{"operation":"PATCH /internal-accounts/x"}', "requestId": "r-1"}
    ref = contract.response_schema("PATCH", "/internal-accounts/InternalAccount:1", 202, body)
    assert ref is not None and ref.name != "internal-account"
