"""The webhook sink: receive, record, verify and order the target's deliveries.

Under pytest-xdist one receiver process (the controller) runs the :class:`SinkServer` and its
store; tests in any process read deliveries through a :class:`SinkView` over the loopback
control API. Without xdist the same code path runs in one process.

- :mod:`.signatures`: ``X-Service-Signature`` verification (§5 Authentication).
- :mod:`.store`: :class:`Delivery` records and the thread-safe :class:`DeliveryStore`.
- :mod:`.server`: :class:`SinkServer`, the HTTP(S) receiver and control API.
- :mod:`.tls`: the throwaway CA and server certificate for HTTPS mode.
- :mod:`.awaited`: :class:`Awaited`, what a wait awaits and the requirement it is charged to.
- :mod:`.view`: :class:`SinkView`, the reader with deadline-bound waits; it counts only
  authentic deliveries and sets aside those whose signature fails (:class:`SetAside`).
- :mod:`.ordering`: the §3 state machines and :func:`check_order`.
- :mod:`.registration`: :class:`EndpointRegistration` of the sink as ``webhookEndpoint``.
"""

from conformance.ground.public_keys import PublicKey, load_public_key

from ._addresses import url_on_loopback
from .awaited import Awaited
from .ordering import (
    CUSTOMER_KYB,
    CUSTOMER_KYC,
    EXTERNAL_ACCOUNT,
    INCOMING_PAYMENT,
    MACHINES,
    OUTGOING_PAYMENT,
    OrderReport,
    StateMachine,
    check_order,
    machine_for,
)
from .registration import EndpointRegistration
from .server import SinkServer
from .signatures import SIGNATURE_HEADER, SignatureCheck, verify_signature
from .store import Delivery, DeliveryStore, dedupe_by_event_id
from .tls import TlsMaterial, generate_tls_material
from .view import SetAside, SinkRuledOut, SinkTimeout, SinkUnavailable, SinkView

__all__ = [
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
    "SinkRuledOut",
    "SinkServer",
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
]
