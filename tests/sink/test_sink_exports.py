"""The public surface of conformance.webhooks.sink is explicit and pinned."""

from __future__ import annotations

import conformance.webhooks.sink as sink

EXPECTED = {
    "CUSTOMER_KYB",
    "CUSTOMER_KYC",
    "EXTERNAL_ACCOUNT",
    "INCOMING_PAYMENT",
    "MACHINES",
    "OUTGOING_PAYMENT",
    "SIGNATURE_HEADER",
    "Awaited",
    "Delivery",
    "DeliveryStore",
    "EndpointRegistration",
    "OrderReport",
    "PublicKey",
    "SetAside",
    "SignatureCheck",
    "SinkServer",
    "SinkRuledOut",
    "SinkTimeout",
    "SinkUnavailable",
    "SinkView",
    "StateMachine",
    "TlsMaterial",
    "check_order",
    "dedupe_by_event_id",
    "generate_tls_material",
    "load_public_key",
    "machine_for",
    "url_on_loopback",
    "verify_signature",
}


def test_all_is_pinned_and_every_name_exists() -> None:
    assert set(sink.__all__) == EXPECTED
    for name in sink.__all__:
        assert hasattr(sink, name), name
