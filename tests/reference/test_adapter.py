"""``reference.adapter``: the suite's hooks answered through the sandbox endpoints."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import httpx
import pytest

from reference import adapter

from .customer_helpers import created, individual, status_of
from .money_helpers import ACCOUNT_INFO, execute, funded, quote, transaction
from .reference_helpers import PROJECT_ROOT, RunningSandbox

# The field of each account type that carries the scenario suffix.
PRIMARY = {
    "US_ACCOUNT": "accountNumber",
    "IBAN_ACCOUNT": "iban",
    "CLABE_ACCOUNT": "clabe",
    "WALLET": "address",
}


def profile(sandbox: RunningSandbox, *, strip_version: bool = False) -> SimpleNamespace:
    base_url = sandbox.base_url.rsplit("/", 1)[0] if strip_version else sandbox.base_url
    token_id, secret = sandbox.credentials()
    return SimpleNamespace(
        base_url=base_url, client_id=token_id, client_secret=secret, request_timeout=5.0
    )


def test_contact_verification_code(sandbox: RunningSandbox, client: httpx.Client) -> None:
    body = individual(region="NL", email="an@example.nl")
    customer = created(client.post("/customers", json=body))
    client.post(f"/customers/{customer['id']}/verify-email")
    code = adapter.pytest_conformance_contact_verification_code(
        profile(sandbox), customer["id"], "email"
    )
    confirmed = client.post(
        f"/customers/{customer['id']}/verify-email/confirm", json={"code": code}
    )
    assert confirmed.json()["contactVerification"] == {"email": "VERIFIED"}
    with pytest.raises(adapter.AdapterError, match="404"):
        adapter.pytest_conformance_contact_verification_code(
            profile(sandbox), customer["id"], "phone"
        )
    with pytest.raises(ValueError, match="channel"):
        adapter.pytest_conformance_contact_verification_code(
            profile(sandbox), customer["id"], "sms"
        )


def test_complete_hosted_kyc(sandbox: RunningSandbox, client: httpx.Client) -> None:
    customer = created(client.post("/customers", json=individual("Ann Lee 003")))
    link = client.post(
        f"/customers/{customer['id']}/kyc-link", json={"redirectUri": "https://p.example/"}
    ).json()
    # a base URL without the version segment works too
    target = profile(sandbox, strip_version=True)
    assert (
        adapter.pytest_conformance_complete_hosted_kyc(target, customer["id"], link["kycUrl"])
        is True
    )
    assert status_of(client, customer["id"]) == "APPROVED"
    with pytest.raises(adapter.AdapterError, match="409"):
        adapter.pytest_conformance_complete_hosted_kyc(target, customer["id"], link["kycUrl"])
    with pytest.raises(ValueError, match="kycUrl"):
        adapter.pytest_conformance_complete_hosted_kyc(
            target, customer["id"], "https://x.example/kyc"
        )


def test_adapter_does_not_import_the_suite() -> None:
    code = "import sys, reference.adapter; print('conformance' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_banner_names_the_adapter(sandbox: RunningSandbox) -> None:
    assert sandbox.banner["adapter"] == "reference.adapter"


@pytest.mark.parametrize(
    ("currency", "kind"),
    [("USD", "US_ACCOUNT"), ("EUR", "IBAN_ACCOUNT"), ("MXN", "CLABE_ACCOUNT"), ("USDC", "WALLET")],
)
def test_failing_account_number_makes_payouts_fail(
    client: httpx.Client, currency: str, kind: str
) -> None:
    number = adapter.pytest_conformance_failing_account_number(SimpleNamespace(), currency)
    assert number.endswith("099")
    holder = funded(client, 50_000)
    info = {**ACCOUNT_INFO[kind]("000"), PRIMARY[kind]: number}
    body = {"customerId": holder.id, "currency": currency, "accountInfo": info}
    destination = created(client.post("/customers/external-accounts", json=body))["id"]
    payout = quote(client, holder.account_id(), destination, amount=10_000)
    execute(client, payout["id"])
    assert transaction(client, payout["transactionId"])["status"] == "FAILED"
