"""A restart with the same ``--db`` keeps platforms, credentials, config, key, outbox,
customers with everything recorded about them, and the money: balances, quotes and
transactions."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .customer_helpers import (
    complete_business,
    consent,
    created,
    individual,
    submit,
    upload,
)
from .money_helpers import (
    available,
    execute,
    external,
    funded,
    internal_accounts,
    quote,
    transaction,
)
from .reference_helpers import RunningSandbox, WebhookReceiver, signature_valid, with_webhook_id


def test_restart_keeps_state_and_delivers_pending_events(
    launch, receiver: WebhookReceiver, tmp_path: Path
) -> None:
    db = tmp_path / "sandbox.sqlite3"
    fast_retries = ("--webhook-retry-scale", "0.001")
    first = launch(*fast_retries, db=db)
    receiver.default_status = 500  # keep the event undelivered while the first run lives
    with first.client() as client:
        client.patch(
            "/config", json={"umaDomain": "kept.example.com", "webhookEndpoint": receiver.url}
        )
        config = client.get("/config").json()
        webhook_id = client.post("/sandbox/webhooks/test").json()["webhookId"]
    receiver.wait_for(with_webhook_id(webhook_id))
    assert first.stop() == 0

    receiver.default_status = 200
    second = launch(*fast_retries, db=db)
    for key in (
        "client_id",
        "client_secret",
        "second_client_id",
        "second_client_secret",
        "production_client_id",
        "production_client_secret",
        "webhook_public_key_pem",
    ):
        assert second.banner[key] == first.banner[key], key
    with second.client() as client:
        assert client.get("/config").json() == config
    deliveries = receiver.wait_for(
        lambda ds: any(d.answered == 200 and with_webhook_id(webhook_id)([d]) for d in ds)
    )
    delivered = deliveries[-1]
    assert signature_valid(
        second.banner["webhook_public_key_pem"],
        delivered.body,
        delivered.headers["X-Service-Signature"],
    )


def test_fixed_credentials_replace_the_stored_pair(launch, tmp_path: Path) -> None:
    db = tmp_path / "sandbox.sqlite3"
    first = launch(db=db)
    assert first.stop() == 0
    second = launch("--client-id", "tok_sbx_pinned", "--client-secret", "pinned", db=db)
    assert second.credentials() == ("tok_sbx_pinned", "pinned")
    assert second.banner["second_client_id"] == first.banner["second_client_id"]
    with second.client() as client:
        assert client.get("/config").status_code == 200
    assert second.stop() == 0
    third = launch("--client-id", "tok_sbx_pinned", "--client-secret", "pinned", db=db)
    assert third.credentials() == ("tok_sbx_pinned", "pinned")


def test_restart_keeps_customers_and_their_verification(
    launch: Callable[..., RunningSandbox], tmp_path: Path
) -> None:
    db = tmp_path / "sandbox.sqlite3"
    first = launch(db=db)
    with first.client() as client:
        terms = consent()
        customer = created(client.post("/customers", json=individual(agreementConsents=[terms])))
        created(upload(client, customer["id"]))
        verification = submit(client, customer["id"])
        firm, owner = complete_business(client, "RC-9003")
        submit(client, firm["id"])
        before = [client.get(f"/customers/{cid}").json() for cid in (customer["id"], firm["id"])]
        owner = client.get(f"/beneficial-owners/{owner['id']}").json()
    assert first.stop() == 0

    second = launch(db=db)
    with second.client() as client:
        after = [client.get(f"/customers/{cid}").json() for cid in (customer["id"], firm["id"])]
        assert after == before
        assert after[0]["agreementConsents"] == [terms]
        assert after[1]["kybStatus"] == "APPROVED"
        latest = client.get("/verifications", params={"customerId": customer["id"]}).json()
        assert latest == verification
        assert client.get(f"/beneficial-owners/{owner['id']}").json() == owner
        # the stored suffix still decides, and the final status stays final
        assert client.post("/verifications", json={"customerId": firm["id"]}).status_code == 400


def test_restart_keeps_balances_quotes_and_transactions(
    launch: Callable[..., RunningSandbox], tmp_path: Path
) -> None:
    db = tmp_path / "sandbox.sqlite3"
    first = launch(db=db)
    with first.client() as client:
        holder = funded(client, 50_000)
        destination = external(client, holder.id)["id"]
        done = quote(client, holder.account_id(), destination, amount=10_000)
        execute(client, done["id"])
        waiting = quote(client, holder.account_id(), destination, amount=5_000)
        before = {
            "accounts": internal_accounts(client, holder.id),
            "platform": client.get("/customers/internal-accounts").json(),
            "done": client.get(f"/quotes/{done['id']}").json(),
            "transaction": transaction(client, done["transactionId"]),
        }
    assert first.stop() == 0

    second = launch(db=db)
    with second.client() as client:
        assert internal_accounts(client, holder.id) == before["accounts"]
        assert client.get("/customers/internal-accounts").json() == before["platform"]
        assert client.get(f"/quotes/{done['id']}").json() == before["done"]
        assert transaction(client, done["transactionId"]) == before["transaction"]
        assert execute(client, waiting["id"])["status"] == "PROCESSING"
        assert available(client, holder.id) == 35_000
