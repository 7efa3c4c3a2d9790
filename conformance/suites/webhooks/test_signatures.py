"""§5's signature rule for webhooks, for every delivery of the run: each carries an
X-Service-Signature that verifies with the service public key (§6 Events)."""

from __future__ import annotations

from itertools import zip_longest

import pytest

from conformance.contract.failures import check
from conformance.webhooks.event_checks import SIGNATURE_CLAUSE, listing
from conformance.webhooks.event_trigger import trigger_test_event

pytestmark = [pytest.mark.resource("Webhook")]


@pytest.mark.requirement("WEBHOOK-SIGNATURE")
@pytest.mark.reads_the_run
def test_every_delivery_is_signed(client, webhook_sink, run_webhook_sinks, profile):
    """The one report of deliveries whose X-Service-Signature fails: the sink's view sets
    them aside (they satisfy no wait, and no other test sees them), and this test, run
    after the others, names every one the run received, its own TEST delivery included,
    at every sink of the run (under xdist with a sandbox per lane, each lane's)."""
    if webhook_sink.public_key is None:
        pytest.skip(
            "needs the webhook public key (--webhook-public-key / CONFORMANCE_WEBHOOK_PUBLIC_KEY)"
        )
    if profile.environment == "sandbox":
        trigger_test_event(client, webhook_sink, profile, set_aside_too=True)
    elif not any(sink.received() for sink in run_webhook_sinks):
        pytest.skip("no delivery arrived in this run to check (the TEST event is sandbox-only)")
    per_sink = [sink.set_aside() for sink in run_webhook_sinks]
    forged = [aside for asides in per_sink for aside in asides]
    received = sum(len(sink.received()) for sink in run_webhook_sinks)
    sinks = "" if len(per_sink) == 1 else f" at its {len(per_sink)} sinks"
    # taken in turn from each sink (sink 1 is this lane's), so the first ones shown cover all
    named = [
        [(f"sink {n}: " if sinks else "") + aside.summary() for aside in asides]
        for n, asides in enumerate(per_sink, 1)
    ]
    shown = [line for turn in zip_longest(*named) for line in turn if line is not None]
    check(
        not forged,
        SIGNATURE_CLAUSE,
        "each delivery carries X-Service-Signature: a base64 signature over the SHA-256 of the "
        "exact body that verifies with the service public key",
        observed=Plain(
            f"{len(forged)} of the {received} deliveries of this run{sinks}, whose signature "
            "does not verify (set aside: no other test counted them)"
        ),
        hint="set aside:\n"
        + listing(shown)
        + "\n  check that the profile's webhook public key is the target's "
        "(--webhook-public-key), that the signature covers the exact bytes sent, and that "
        "nothing else posts to the sink's URL",
    )


class Plain(str):
    """Shown as it is in a failure message (no quotes)."""

    def __repr__(self) -> str:
        return str(self)
