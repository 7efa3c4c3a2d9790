"""Public fixtures of the conformance suite."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import pytest

from conformance.accounts.ownership import OWNERSHIP_PROOF_HOOK, PENDING_NUMBER_HOOK, Ownership
from conformance.accounts.rule_based import SWEEP_RULE_HOOK, RuleBasedAccounts
from conformance.agents.flows import Agents
from conformance.cards.flows import Cards
from conformance.contract.markers import ADVISORY_PROPERTY
from conformance.contract.schemas import SchemaRegistry, default_registry
from conformance.customers.events import CustomerEvents
from conformance.customers.money_customers import MoneyCustomers
from conformance.customers.onboarding import Onboarding
from conformance.exchange.client import TargetClient
from conformance.ground import hookspecs
from conformance.ground.profile import Credentials, TargetProfile
from conformance.invitations.flows import Invitations
from conformance.payments.events import PaymentEvents
from conformance.payments.external_accounts import ExternalAccounts
from conformance.payments.funding import Funding
from conformance.payments.quotes import Quotes
from conformance.payments.transaction_history import TransactionHistory
from conformance.payments.transfer_flows import PAY_HOOK, TRANSFER_BODY_HOOK, Transfers
from conformance.run.state import session_state
from conformance.sca.flows import LOGIN_HOOK, PROOF_HOOK, Sca
from conformance.wallet.flows import EmbeddedWallet
from conformance.wallet.format import wallet_format
from conformance.webhooks.resource_events import ResourceEvents
from conformance.webhooks.sink import SinkView

__all__ = [
    "adapter",
    "advisory",
    "agents",
    "cards",
    "challenge_left_to_expire",
    "client",
    "customer_events",
    "embedded_wallet",
    "external_accounts",
    "funding",
    "invitations",
    "money_customers",
    "onboarding",
    "ownership",
    "payment_events",
    "production_credentials",
    "profile",
    "quote_left_to_expire",
    "quotes",
    "resource_events",
    "restore_config",
    "rule_based",
    "sca",
    "schema_registry",
    "scratch_platform",
    "second_client",
    "slow_payout_under_way",
    "transaction_history",
    "transfers",
]


# The amount of the slow (003) payout started with the run (minor units of USD).
SLOW_PAYOUT_AMOUNT = 10_000

# The adapter hook that names an external account whose payouts fail (§4: not shown).
FAILING_ACCOUNT_HOOK = hookspecs.pytest_conformance_failing_account_number


@pytest.fixture(scope="session")
def profile(pytestconfig: pytest.Config) -> TargetProfile:
    """The target profile of this run."""
    return session_state(pytestconfig).profile


@pytest.fixture(scope="session")
def schema_registry() -> SchemaRegistry:
    """The JSON Schema registry, loaded once per session."""
    return default_registry()


@pytest.fixture(scope="session")
def client(pytestconfig: pytest.Config, profile: TargetProfile) -> Iterator[TargetClient]:
    """The client acting as the primary platform."""
    state = session_state(pytestconfig)
    target = TargetClient.for_profile(profile, state.log, state=state.exchange)
    yield target
    target.close()


@pytest.fixture(scope="session")
def second_client(client: TargetClient, profile: TargetProfile) -> TargetClient:
    """The client acting as a second platform (isolation tests)."""
    if profile.second is None:
        pytest.skip(
            "needs a second platform's credentials (--second-client-id/--second-client-secret "
            "or CONFORMANCE_SECOND_CLIENT_ID/_SECRET)"
        )
    return client.with_credentials(profile.second)


@pytest.fixture(scope="session")
def production_credentials(profile: TargetProfile) -> Credentials:
    """Production credentials, for environment-binding tests."""
    if profile.production is None:
        pytest.skip(
            "needs production credentials (--production-client-id/--production-client-secret "
            "or CONFORMANCE_PRODUCTION_CLIENT_ID/_SECRET)"
        )
    return profile.production


@pytest.fixture
def advisory(request: pytest.FixtureRequest) -> Callable[[str], None]:
    """Record an observation about unspecified behaviour; listed in reports, never failing."""

    def record(message: str) -> None:
        request.node.user_properties.append((ADVISORY_PROPERTY, message))

    return record


class AdapterCouldNot(AssertionError):
    """An adapter hook raised: the test fails with what stopped it (the request and the
    answer the adapter names), not with the adapter's traceback. An ``Exception`` still, so
    a test that takes an adapter's refusal as an answer catches it."""

    def __init__(self, hook: str, error: Exception) -> None:
        super().__init__(
            f"the adapter could not complete {hook}: {type(error).__name__}: {error}\n"
            "  hint: the adapter reaches the target for a trigger the interface does not "
            "show; what the target answered stopped it (see the message)"
        )


class Adapter:
    """Calls the adapter hooks (triggers the interface names but does not show)."""

    def __init__(self, config: pytest.Config, profile: TargetProfile) -> None:
        self._config = config
        self._profile = profile

    def call(self, spec: hookspecs.HookSpec, **kwargs: Any) -> Any:
        """Call the adapter hook ``spec`` (``hookspecs.pytest_conformance_x``); skip the test
        when no adapter implements it."""
        __tracebackhide__ = True
        name = hookspecs.hook_name(spec)
        try:
            result = getattr(self._config.hook, name)(profile=self._profile, **kwargs)
        except AssertionError:  # a clause failure the adapter raised: the target's defect
            raise
        except Exception as exc:  # the adapter's own error: say what stopped it
            raise AdapterCouldNot(name, exc) from None
        if result is None:
            pytest.skip(f"needs adapter hook '{name}' (give --adapter a module with it)")
        return result


@pytest.fixture(scope="session")
def adapter(pytestconfig: pytest.Config, profile: TargetProfile) -> Adapter:
    """The target's adapter, for triggers the interface does not show."""
    return Adapter(pytestconfig, profile)


@contextmanager
def _restored_configs() -> Iterator[Callable[[TargetClient], None]]:
    """Take platforms' configuration snapshots; PATCH each back at the end.

    The run already holds each such platform's configuration lock exclusively for the
    whole test (``scheduling.py``), so taking it here again would change nothing."""
    from conformance.configuration.bodies import editable_snapshot

    snapshots: list[tuple[TargetClient, dict[str, Any]]] = []

    def remember(target: TargetClient) -> None:
        config = target.get("/config", validate=False).json
        snapshots.append((target, editable_snapshot(config)))

    yield remember
    for target, body in reversed(snapshots):
        target.patch("/config", json=body, validate=False)


@pytest.fixture
def restore_config(client: TargetClient) -> Iterator[Callable[[TargetClient], None]]:
    """Take the platform's configuration lock, snapshot it, and PATCH it back afterwards.

    Call the yielded function with another client (e.g. ``second_client``) to do the same
    for that platform. Tests that change configuration use this fixture: the run then holds
    the lock exclusively for the whole test and runs it before the others
    (``scheduling.py``), so no other test, on any worker, sees the change.
    """
    with _restored_configs() as remember:
        remember(client)
        yield remember


@pytest.fixture
def scratch_platform(client: TargetClient, profile: TargetProfile) -> Iterator[TargetClient]:
    """A platform whose configuration a test may change at will, restored afterwards.

    The second platform when the profile has one: the run holds its lock exclusively for
    the test, and only the tests that use ``second_client`` wait, while the primary
    platform's tests go on beside it. Without a second platform it is the primary one, with
    what ``restore_config`` gives (``scheduling.py`` takes that lock exclusively then).
    For checks of PATCH /config itself, which hold for every platform alike.
    """
    target = client if profile.second is None else client.with_credentials(profile.second)
    with _restored_configs() as remember:
        remember(target)
        yield target


@pytest.fixture(scope="session")
def onboarding(client: TargetClient, profile: TargetProfile) -> Onboarding:
    """Creates customers, completes packets, uploads documents and submits verifications."""
    return Onboarding(client, profile)


@pytest.fixture
def customer_events(
    webhook_sink: SinkView,
    schema_registry: SchemaRegistry,
    advisory: Callable[[str], None],
    profile: TargetProfile,
) -> CustomerEvents:
    """Waits for and checks CUSTOMER.KYC_* / CUSTOMER.KYB_* events in the webhook sink."""
    return CustomerEvents(webhook_sink, schema_registry, advisory, profile.webhook_timeout)


# -- moving money: one part per job (customers, external accounts, funding, quotes, history)


@pytest.fixture(scope="session")
def money_customers(client: TargetClient, profile: TargetProfile) -> MoneyCustomers:
    """Creates APPROVED and PENDING customers who may move money."""
    return MoneyCustomers(client, profile)


@pytest.fixture(scope="session")
def external_accounts(
    client: TargetClient, profile: TargetProfile, adapter: Adapter
) -> ExternalAccounts:
    """Registers external accounts; those whose payouts must fail take a number from the
    adapter hook ``pytest_conformance_failing_account_number`` (tests skip without it)."""

    def failing_number(currency: str) -> str:
        return str(adapter.call(FAILING_ACCOUNT_HOOK, currency=currency))

    return ExternalAccounts(client, profile, failing_number)


@pytest.fixture(scope="session")
def funding(
    client: TargetClient,
    profile: TargetProfile,
    money_customers: MoneyCustomers,
    external_accounts: ExternalAccounts,
) -> Funding:
    """Reads and funds internal accounts; wallets (approved, funded, with a payee)."""
    return Funding(client, profile, money_customers, external_accounts)


@pytest.fixture(scope="session")
def quotes(client: TargetClient) -> Quotes:
    """Creates and executes quotes, and awaits their expiry on the target's clock."""
    return Quotes(client)


@pytest.fixture(scope="session")
def transaction_history(client: TargetClient, profile: TargetProfile) -> TransactionHistory:
    """Reads transactions and waits for them to settle."""
    return TransactionHistory(client, profile)


@pytest.fixture(scope="session")
def cards(
    client: TargetClient,
    money_customers: MoneyCustomers,
    funding: Funding,
    adapter: Adapter,
    profile: TargetProfile,
) -> Cards:
    """Cards and their transactions through the adapter's card hooks (issuing and the
    network simulators are not shown); tests skip when a hook is missing."""
    return Cards(client, money_customers, funding, adapter.call, profile.webhook_timeout)


@pytest.fixture(scope="session")
def agents(client: TargetClient, adapter: Adapter) -> Agents:
    """Agents and their bearer sessions through the adapter's agent hooks (agent creation
    and device codes are not shown); tests skip when a hook is missing."""
    return Agents(client, adapter.call)


@pytest.fixture(scope="session")
def invitations(adapter: Adapter) -> Invitations:
    """Invitations created and claimed through the adapter's hooks (not shown)."""
    return Invitations(adapter.call)


@pytest.fixture(scope="session")
def sca(
    money_customers: MoneyCustomers,
    funding: Funding,
    external_accounts: ExternalAccounts,
    quotes: Quotes,
    transaction_history: TransactionHistory,
    adapter: Adapter,
) -> Sca:
    """SCA customers, challenged executes, SCA logins and quote authorization; the login
    body and the proofs come from the adapter hooks ``pytest_conformance_sca_login_body``
    and ``pytest_conformance_sca_proof`` (not shown)."""

    def login_body(customer_id: str) -> dict[str, Any]:
        return dict(adapter.call(LOGIN_HOOK, customer_id=customer_id))

    def proof(customer_id: str, challenge: Mapping[str, Any], valid: bool) -> dict[str, Any]:
        body = adapter.call(PROOF_HOOK, customer_id=customer_id, challenge=dict(challenge),
                            valid=valid)  # fmt: skip
        return dict(body)

    parts = (money_customers, funding, external_accounts, quotes, transaction_history)
    return Sca(*parts, login_body=login_body, proof=proof)


@pytest.fixture(scope="session")
def rule_based(
    money_customers: MoneyCustomers, funding: Funding, adapter: Adapter
) -> RuleBasedAccounts:
    """Creates rule-based accounts; the ``sweepRule`` comes from the adapter hook
    ``pytest_conformance_sweep_rule`` (its inner structure is not shown)."""

    def sweep_rule(customer_id: str, destination_id: str) -> dict[str, Any]:
        rule = adapter.call(
            SWEEP_RULE_HOOK, customer_id=customer_id, destination_account_id=destination_id
        )
        return dict(rule)

    return RuleBasedAccounts(money_customers, funding, sweep_rule)


@pytest.fixture(scope="session")
def ownership(external_accounts: ExternalAccounts, adapter: Adapter) -> Ownership:
    """Walks external-account ownership verification; the pending account's number and the
    proofs come from the adapter hooks ``pytest_conformance_ownership_pending_account_number``
    and ``pytest_conformance_ownership_proof`` (bodies not shown)."""

    def pending_number(currency: str) -> str:
        return str(adapter.call(PENDING_NUMBER_HOOK, currency=currency))

    def proof(account: dict[str, Any], challenge: dict[str, Any], valid: bool) -> dict[str, Any]:
        found = adapter.call(
            OWNERSHIP_PROOF_HOOK, account=account, challenge=challenge, valid=valid
        )
        return dict(found)

    return Ownership(external_accounts, pending_number, proof)


@pytest.fixture
def resource_events(
    webhook_sink: SinkView,
    schema_registry: SchemaRegistry,
    advisory: Callable[[str], None],
    profile: TargetProfile,
) -> ResourceEvents:
    """Waits for and checks the events about one resource (EXTERNAL_ACCOUNT.STATUS_UPDATED,
    INCOMING_PAYMENT.REFUND_*) in the webhook sink."""
    return ResourceEvents(webhook_sink, schema_registry, advisory, profile.webhook_timeout)


@pytest.fixture(scope="session")
def transfers(
    money_customers: MoneyCustomers,
    funding: Funding,
    quotes: Quotes,
    transaction_history: TransactionHistory,
    adapter: Adapter,
) -> Transfers:
    """Just-in-time quotes and POST /sandbox/send, pull sources, UMA and wallet payouts and
    the deprecated transfer endpoints; a deposit carrying a reference and the transfer
    bodies come from the adapter hooks ``pytest_conformance_pay_instructions`` and
    ``pytest_conformance_transfer_body`` (not shown)."""

    def pay(quote_id: str, reference: str, currency: str, amount: int) -> Mapping[str, Any]:
        return dict(adapter.call(PAY_HOOK, quote_id=quote_id, reference=reference,
                                 currency=currency, amount=amount))  # fmt: skip

    def body(direction: str, source: str, destination: str, amount: int, currency: str) -> Any:
        ids = {"source_id": source, "destination_id": destination}
        return adapter.call(
            TRANSFER_BODY_HOOK, direction=direction, amount=amount, currency=currency, **ids
        )

    return Transfers(money_customers, funding, quotes, transaction_history, pay, body)


@pytest.fixture
def payment_events(
    webhook_sink: SinkView,
    schema_registry: SchemaRegistry,
    advisory: Callable[[str], None],
    profile: TargetProfile,
) -> PaymentEvents:
    """Waits for and checks OUTGOING_PAYMENT.* events in the webhook sink."""
    return PaymentEvents(webhook_sink, schema_registry, advisory, profile.webhook_timeout)


@pytest.fixture(scope="session")
def embedded_wallet(
    pytestconfig: pytest.Config,
    money_customers: MoneyCustomers,
    funding: Funding,
    external_accounts: ExternalAccounts,
    quotes: Quotes,
) -> Any:
    """The suite's wallet client (§5 embedded wallet): customers with credentials of each
    type, sessions, and wallet-signed operations; the encodings §5 does not show come from
    the adapter hook ``pytest_conformance_wallet_format`` (default: the reference's)."""
    overrides = pytestconfig.hook.pytest_conformance_wallet_format(profile=funding.profile)
    try:
        chosen = wallet_format(overrides)
    except (TypeError, ValueError) as exc:
        pytest.fail(f"conformance adapter: {exc}", pytrace=False)
    return EmbeddedWallet(money_customers, funding, external_accounts, quotes, chosen)


# -- set up when the run starts (``@starts_early``, see scheduling.py) ------------------------


@pytest.fixture(scope="session")
def quote_left_to_expire(funding: Funding, quotes: Quotes) -> tuple[Any, Any, Any, dict[str, Any]]:
    """A USD wallet, its corridor, its source's balances and a quote nobody executes, made
    when the run starts so that the quote's lifetime passes while the other tests run."""
    wallet = funding.wallet(("USD",))
    corridor = wallet.corridor()
    before = funding.account_balances(wallet.customer_id, corridor.source_id)
    return wallet, corridor, before, quotes.quote(corridor.body(amount=15_000))


@pytest.fixture(scope="session")
def slow_payout_under_way(
    funding: Funding,
    external_accounts: ExternalAccounts,
    quotes: Quotes,
    transaction_history: TransactionHistory,
) -> dict[str, Any]:
    """A payout to an identifier ending in 003 (a slow payment, §4), executed when the run
    starts so that however slow it is, it settles while the other tests run: its own USD
    wallet, that source's balances before it, the executed quote, the transaction as it
    stood right after execute, and when it was executed (``time.monotonic``)."""
    wallet = funding.wallet(("USD",))
    source = wallet.sources["USD"]["id"]
    before = funding.account_balances(wallet.customer_id, source)
    destination = external_accounts.external_account(wallet.customer_id, suffix="003")
    started = time.monotonic()
    executed = quotes.pay(source, destination["id"], SLOW_PAYOUT_AMOUNT)
    early = transaction_history.transaction(wallet.customer_id, executed["transactionId"]) or {}
    return {"wallet": wallet, "before": before, "executed": executed, "early": early,
            "started": started}  # fmt: skip


@pytest.fixture(scope="session")
def challenge_left_to_expire(sca: Sca) -> tuple[Any, Any]:
    """An SCA wallet and a challenged quote nobody authorizes, made when the run starts so
    that the challenge's lifetime passes while the other tests run."""
    wallet = sca.wallet(("EUR", "USD"))
    return wallet, sca.challenged(wallet)
