"""§5 Authentication — HTTP Basic with `<api token id>:<api client secret>`."""

from __future__ import annotations

import base64
import secrets

import pytest

from conformance.contract import clauses
from conformance.contract.markers import skip_unless_sandbox
from conformance.exchange.assertions import assert_status, assert_unauthorized
from conformance.exchange.client import RawAuthorization
from conformance.ground.profile import Credentials

pytestmark = pytest.mark.resource("Authentication")

CLAUSE = clauses.AUTHENTICATION


@pytest.mark.requirement("AUTH-BASIC-REQUIRED")
def test_valid_credentials_are_accepted(client):
    response = client.get("/config")
    assert_status(response, 200, CLAUSE, "valid HTTP Basic credentials are accepted")


@pytest.mark.requirement("AUTH-BASIC-REQUIRED", "AUTH-401-REASON")
@pytest.mark.parametrize(("method", "path"), [("GET", "/config"), ("PATCH", "/config")])
def test_missing_credentials_are_refused(client, method, path):
    response = client.request(
        method, path, auth=None, json={} if method == "PATCH" else None, validate=False
    )
    assert_unauthorized(
        response,
        f"{method} {path} without credentials answers 401",
        requirement="AUTH-BASIC-REQUIRED",
    )
    client.validate(response)  # the clause under test first, then the body's shape


def _b64(text):
    return base64.b64encode(text.encode()).decode()


MALFORMED = {
    "bearer-scheme": lambda c: f"Bearer {c.client_id}",
    "not-base64": lambda c: "Basic !!not-base64!!",
    "no-colon": lambda c: f"Basic {_b64(c.client_id)}",
    "empty-credentials": lambda c: f"Basic {_b64(':')}",
    "scheme-only": lambda c: "Basic",
}


@pytest.mark.requirement("AUTH-BASIC-MALFORMED", "AUTH-401-REASON")
@pytest.mark.parametrize("shape", sorted(MALFORMED))
def test_malformed_authorization_is_refused(client, profile, shape):
    header = MALFORMED[shape](profile.primary)
    response = client.get("/config", auth=RawAuthorization(header), validate=False)
    assert_unauthorized(
        response,
        f"a malformed Authorization header ({shape}) answers 401",
        requirement="AUTH-BASIC-MALFORMED",
    )
    client.validate(response)


@pytest.mark.requirement("AUTH-BASIC-WRONG-SECRET", "AUTH-401-REASON")
def test_wrong_secret_is_refused(client, profile):
    wrong = Credentials(profile.primary.client_id, "wrong-" + secrets.token_urlsafe(16))
    response = client.get("/config", auth=wrong, validate=False)
    assert_unauthorized(
        response,
        "a known token id with a wrong secret answers 401",
        requirement="AUTH-BASIC-WRONG-SECRET",
    )
    client.validate(response)  # the status is the clause under test: judged first


@pytest.mark.requirement("AUTH-BASIC-WRONG-SECRET", "AUTH-401-REASON")
def test_unknown_token_id_is_refused(client):
    unknown = Credentials("unknown-" + secrets.token_hex(8), secrets.token_urlsafe(16))
    response = client.get("/config", auth=unknown, validate=False)
    assert_unauthorized(
        response, "an unknown token id answers 401", requirement="AUTH-BASIC-WRONG-SECRET"
    )
    client.validate(response)


@pytest.mark.requirement(
    "AUTH-ENVIRONMENT-BINDING", "COMMON-BASE-ADDRESS-SHARED", "AUTH-401-REASON"
)
def test_production_keys_do_not_work_in_the_sandbox(client, profile, production_credentials):
    skip_unless_sandbox(profile, "production keys answering 401 in the sandbox")
    response = client.get("/config", auth=production_credentials, validate=False)
    assert_unauthorized(
        response,
        "credentials are bound to one environment: production keys answer 401 here",
        requirement="AUTH-ENVIRONMENT-BINDING",
    )
    client.validate(response)
