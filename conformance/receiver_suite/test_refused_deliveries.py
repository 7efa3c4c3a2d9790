"""§5 Authentication, from the platform's side: "verify the signature with the public key
over that hash; reject on failure". Each delivery carries a real event whose signature
does not verify over the bytes sent; a receiver must answer it with no 2xx status. The
forgeries that reuse what an authentic delivery showed (its signature, its event id) send
that authentic event first, which must be acknowledged."""

from __future__ import annotations

import pytest

from conformance.webhooks.delivering.deliveries import FORGERIES
from conformance.webhooks.delivering.event_bodies import event_of_type

pytestmark = [pytest.mark.resource("Webhook receiver")]


@pytest.mark.requirement("RECEIVER-SIGNATURE-REJECT")
@pytest.mark.parametrize("forgery", FORGERIES, ids=[f.name for f in FORGERIES])
def test_a_delivery_whose_signature_does_not_verify_is_refused(receiver, advisory, forgery):
    event = event_of_type("OUTGOING_PAYMENT.COMPLETED")
    first = forgery.first(event, receiver.key)
    if first is not None:
        receiver.acknowledges(first, f"the authentic event {first.event_id}, sent before")
    delivery = forgery.deliver(event, receiver.key)
    receiver.refuses(delivery, "an OUTGOING_PAYMENT.COMPLETED delivery", advisory)
