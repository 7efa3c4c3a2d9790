"""§5 Authentication — embedded wallet, item 6 and §7 Errors: a malformed OIDC JWT is
refused, possibly with 400 INVALID_INPUT before authentication, otherwise with 401."""

from __future__ import annotations

import base64

import pytest

from conformance.contract import clauses
from conformance.contract.error_bodies import field_errors
from conformance.contract.error_codes import carries_code, code_of
from conformance.contract.failures import check
from conformance.wallet.flows import item

pytestmark = [
    pytest.mark.resource("Authentication"),
    pytest.mark.writes,
    pytest.mark.feature("embedded-wallet"),
]


def _b64(text):
    return base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode()


HEADER, CLAIMS = _b64('{"alg":"ES256"}'), _b64('{"sub":"x"}')
MALFORMED = {
    "one segment": HEADER,
    "two segments": f"{HEADER}.{CLAIMS}",
    "a header that is not JSON": f"{_b64('not json')}.{CLAIMS}.c2ln",
    "claims that are not JSON": f"{HEADER}.{_b64('not json')}.c2ln",
    "segments that are not base64url": "e30.*not*base64*.c2ln",
    "claims that are an array": f"{HEADER}.{_b64('[1, 2]')}.c2ln",
}


@pytest.mark.requirement("WALLET-OIDC-MALFORMED-400")
@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_oidc_token_is_refused(embedded_wallet, case):
    customer = embedded_wallet.customer()
    response = embedded_wallet.register(customer["id"], "OAUTH", {"oidcToken": MALFORMED[case]})
    embedded_wallet.refused(
        response,
        item(6),
        f"a malformed OIDC JWT ({case}) is refused: 400 INVALID_INPUT before authentication, "
        "or 401",
        also=(400,),
    )
    if response.status == 400:
        body = response.json
        check(
            carries_code(body, "INVALID_INPUT"),
            clauses.ERRORS,
            "a malformed OIDC JWT refused before authentication answers 400 INVALID_INPUT",
            observed=code_of(body) if isinstance(body, dict) else body,
            exchange=response.exchange,
        )
        check(
            bool(field_errors(body)),
            clauses.ERRORS,
            "a 400 INVALID_INPUT lists the invalid field in details.errors[]",
            observed=body.get("details") if isinstance(body, dict) else body,
            exchange=response.exchange,
        )
