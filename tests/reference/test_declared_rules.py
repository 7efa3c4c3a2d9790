"""The reference's rules where the interface is silent, as the OpenAPI document it serves by
declares them (``x-reference-choice`` in ``schemas/``): each expression, list and bound is the
one the reference's code uses, so what is declared is what is accepted."""

from __future__ import annotations

import json
from typing import Any

from conformance.ground.datafiles import schemas_dir
from reference.accounts.external_accounts import ACCOUNT_TYPES
from reference.configuration.user_info import provider_required_customer_fields
from reference.configuration.validation import (
    MAX_FEE_BPS,
    MAX_FIXED_FEE,
    URL_CHARS,
    URL_PATH,
    URL_QUERY,
)
from reference.customers import agreements, tax_ids
from reference.customers.contact_verification import CODE
from reference.customers.documents import DOCUMENT_TYPES
from reference.customers.kyc_links import REDIRECT_URI
from reference.customers.owners import ROLES
from reference.customers.validation import PROVIDER_FIELD
from reference.kernel import field_checks
from reference.kernel.countries import ISO_3166_ALPHA2
from reference.kernel.currencies import CURRENCIES
from reference.payments import uma
from reference.wallet.accounts import P256_HEX
from reference.wallet.oidc import SHAPE

CHOICE = "x-reference-choice"


def _schema(name: str) -> Any:
    return json.loads((schemas_dir() / name).read_text(encoding="utf-8"))


def _anchored(expression: str) -> str:
    return f"^({expression})$"


def test_codes_dates_and_timestamps() -> None:
    defs = _schema("common.json")["$defs"]
    assert set(defs["CountryCode"][CHOICE]["enum"]) == ISO_3166_ALPHA2
    assert defs["Date"][CHOICE]["pattern"] == _anchored(field_checks.DATE.pattern)
    assert defs["Timestamp"][CHOICE]["pattern"] == _anchored(field_checks.TIMESTAMP.pattern)
    config = _schema("requests/config-patch.json")["properties"]["supportedCurrencies"]
    iso = {code for code, currency in CURRENCIES.items() if currency.iso4217}
    assert set(config["items"][CHOICE]["properties"]["currencyCode"]["enum"]) == iso
    account = _schema("requests/external-account-create.json")["properties"]
    assert set(account["currency"][CHOICE]["enum"]) == set(CURRENCIES)
    assert set(account["accountInfo"][CHOICE]["properties"]["accountType"]["enum"]) == set(
        ACCOUNT_TYPES
    )


def test_customer_fields() -> None:
    properties = _schema("requests/customer-create.json")["properties"]
    assert properties["fullName"][CHOICE]["pattern"] == field_checks.NON_BLANK.pattern
    assert properties["email"][CHOICE]["pattern"] == _anchored(field_checks.EMAIL.pattern)
    assert properties["email"][CHOICE]["maxLength"] == field_checks.MAX_EMAIL
    assert properties["phoneNumber"][CHOICE]["pattern"] == _anchored(field_checks.E164.pattern)
    info = _schema("common.json")["$defs"]["BusinessInfo"][CHOICE]["allOf"][0]["anyOf"]
    declared = {
        branch["properties"]["country"].get("const"): branch["properties"]["taxId"]["pattern"]
        for branch in info
        if "taxId" in branch.get("properties", {}) and branch["properties"]["taxId"]
    }
    for country, (expression, _) in tax_ids.FORMATS.items():
        assert declared[country] == _anchored(expression.pattern)
    assert declared[None] == _anchored(tax_ids.OTHER[0].pattern)
    owner = _schema("requests/beneficial-owner-create.json")["properties"]
    assert owner["roles"]["items"][CHOICE]["enum"] == list(ROLES)
    document_type = _schema("requests/document-upload.json")["properties"]["documentType"]
    assert document_type["examples"] == list(DOCUMENT_TYPES)  # any other is taken too
    assert document_type["pattern"] == field_checks.NON_BLANK.pattern


def test_links_keys_and_tokens() -> None:
    link = _schema("requests/kyc-link-create.json")["properties"]["redirectUri"]
    assert link[CHOICE]["pattern"] == _anchored(REDIRECT_URI.pattern)
    export = _schema("requests/wallet-export.json")[CHOICE]
    key = export["properties"]["targetPublicKey"]["pattern"]
    assert key == _anchored(P256_HEX.pattern)
    token = _schema("requests/credential-create.json")["properties"]["oidcToken"]["pattern"]
    assert token == _anchored(SHAPE.pattern)


def test_webhook_urls_codes_and_uma_addresses() -> None:
    config = _schema("requests/config-patch.json")["properties"]["webhookEndpoint"][CHOICE]
    pattern = config["anyOf"][0]["pattern"]
    # the reference's path, query and fragment characters, percent-encodings left out
    assert f"(/[/{URL_CHARS}]*)?([?][/?{URL_CHARS}]*)?([#][/?{URL_CHARS}]*)?$" in pattern
    assert URL_CHARS in URL_PATH.pattern and URL_CHARS in URL_QUERY.pattern
    code = _schema("requests/contact-confirm.json")["properties"]["code"][CHOICE]["pattern"]
    assert code == _anchored(CODE.pattern)
    destination = _schema("requests/quote-create.json")["properties"]["destination"][CHOICE]
    address = destination["properties"][uma.ADDRESS_FIELD]["pattern"]
    assert address == _anchored(uma.ADDRESS.pattern)


def test_what_a_customer_lists_and_what_its_currencies_require() -> None:
    create = _schema("requests/customer-create.json")
    properties = create["properties"]
    assert set(properties["currencies"][CHOICE]["items"]["enum"]) == set(CURRENCIES)
    versions = properties["agreementConsents"][CHOICE]["items"]["allOf"]
    assert {
        rule["if"]["properties"]["type"]["const"]: rule["then"]["properties"]["termsVersion"][
            "const"
        ]
        for rule in versions
    } == {agreement.type: agreement.version for agreement in agreements.AGREEMENTS}
    declared: dict[tuple[str, str], set[str]] = {}
    for rule in create[CHOICE]["allOf"][1:]:
        condition = rule["if"]["properties"]
        kind = condition["customerType"]["const"]
        nested = rule["then"].get("properties", {}).get("businessInfo", {}).get("required", [])
        paths = set(rule["then"]["required"]) | {f"businessInfo.{name}" for name in nested}
        for code in condition["currencies"]["contains"]["enum"]:
            declared[(kind, code)] = paths
    for kind, mapping in PROVIDER_FIELD.items():
        for code in CURRENCIES:
            names = provider_required_customer_fields(code)
            assert declared[(kind, code)] == {mapping[n] for n in names if n in mapping}


def test_credential_contacts_and_transfer_accounts() -> None:
    credential = _schema("requests/credential-create.json")["properties"]
    assert credential["email"][CHOICE]["pattern"] == _anchored(field_checks.EMAIL.pattern)
    assert credential["email"][CHOICE]["maxLength"] == field_checks.MAX_EMAIL
    assert credential["phoneNumber"][CHOICE]["pattern"] == _anchored(field_checks.E164.pattern)
    fee = _schema("requests/config-patch.json")["properties"]["feeConfigs"]["items"][CHOICE]
    assert fee["properties"]["fixedFee"]["maximum"] == MAX_FIXED_FEE
    assert fee["properties"]["variableRateBps"]["maximum"] == MAX_FEE_BPS
    transfer = _schema("requests/transfer.json")["properties"]
    for side in ("source", "destination"):
        account = transfer[side]["properties"]["accountId"]
        assert account["pattern"] == field_checks.NON_BLANK.pattern
