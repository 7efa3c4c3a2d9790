"""The reference adapter against a target answering null everywhere, or 500 to every other
request: each hook either works or raises ``AdapterError`` naming the request and the
answer, never a raw TypeError or KeyError; and the suite turns any error an adapter raises
into "the adapter could not ..." with that message, never a traceback."""

from __future__ import annotations

import inspect
import types
from typing import Any

import pytest

import reference.adapter as reference_adapter
from conformance.ground import hookspecs
from conformance.run.fixtures import Adapter, AdapterCouldNot

from .server import HostileTarget

# a plausible value for each hook argument (the target's answers are what is hostile)
ARGUMENTS: dict[str, Any] = {
    "customer_id": "Customer:1", "channel": "email", "kyc_url": "https://x/hosted/kyc/abc",
    "account_id": "InternalAccount:1", "amount": 100, "currency": "USD",
    "internal_account_id": "InternalAccount:1", "card_id": "Card:1",
    "transaction_id": "Transaction:1", "merchant": {"name": "m"},
    "destination_account_id": "ExternalAccount:1", "account": {"id": "ExternalAccount:1"},
    "challenge": {"payloadToSign": "p"}, "valid": True, "quote_id": "Quote:1",
    "reference": "REF", "direction": "in", "source_id": "InternalAccount:1",
    "destination_id": "ExternalAccount:1", "inviter_customer_id": "Customer:1",
    "invitation": {"id": "Invitation:1", "code": "c"},
}  # fmt: skip
HOOKS = sorted(n for n in hookspecs.ADAPTER_HOOKS if hasattr(reference_adapter, n))


def call_hook(name: str, base_url: str) -> Any:
    hook = getattr(reference_adapter, name)
    profile = types.SimpleNamespace(
        base_url=base_url, client_id="id", client_secret="secret", request_timeout=5.0
    )
    wanted = [p for p in inspect.signature(hook).parameters if p != "profile"]
    return hook(profile=profile, **{p: ARGUMENTS[p] for p in wanted})


@pytest.mark.parametrize("mode", ["null-json", "error-500-some"])
def test_each_hook_works_or_names_the_answer_that_stopped_it(mode):
    with HostileTarget(mode) as target:
        for name in HOOKS:
            for _ in range(2):  # error-500-some: one call meets the 500, one the success
                try:
                    call_hook(name, target.base_url)
                except reference_adapter.AdapterError as error:
                    text = str(error)  # the request and what the target answered
                    assert " answered " in text or "the answer to " in text, (name, text)


def test_the_suite_says_the_adapter_could_not_complete_a_hook():
    def refused(**_: Any) -> Any:
        raise reference_adapter.AdapterError("GET /sandbox/limits/USD answered 500: 'boom'")

    config = types.SimpleNamespace(
        hook=types.SimpleNamespace(pytest_conformance_transaction_limits=refused)
    )
    adapter = Adapter(config, profile=None)  # type: ignore[arg-type]
    with pytest.raises(AdapterCouldNot) as failed:
        adapter.call(hookspecs.pytest_conformance_transaction_limits, currency="USD")
    message = str(failed.value)
    assert message.startswith("the adapter could not complete pytest_conformance_transaction")
    assert "AdapterError: GET /sandbox/limits/USD answered 500: 'boom'" in message
    assert failed.value.__cause__ is None  # no chained traceback of the adapter's own
