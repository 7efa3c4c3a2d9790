"""§5 Authentication, from the platform's side: "verify the signature with the public key
over that hash; reject on failure". Each delivery carries a real event whose signature
does not verify over the bytes sent; a receiver must answer it with no 2xx status."""

from __future__ import annotations

import pytest

from conformance.webhooks.delivering.deliveries import FORGERIES
from conformance.webhooks.delivering.event_bodies import event_of_type

pytestmark = [pytest.mark.resource("Webhook receiver")]


@pytest.mark.requirement("RECEIVER-SIGNATURE-REJECT")
@pytest.mark.parametrize("forgery", FORGERIES, ids=[f.name for f in FORGERIES])
def test_a_delivery_whose_signature_does_not_verify_is_refused(receiver, advisory, forgery):
    delivery = forgery.deliver(event_of_type("OUTGOING_PAYMENT.COMPLETED"), receiver.key)
    receiver.refuses(delivery, "an OUTGOING_PAYMENT.COMPLETED delivery", advisory)
