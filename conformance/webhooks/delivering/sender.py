"""Sending deliveries to a platform's webhook endpoint, and reading its answer (§6 Events).

Each delivery is one POST through the suite's client (``exchange/client.py``): within one
deadline for connect, send and the whole answer, recorded as evidence with a curl line,
counted toward the target's health (a receiver that stops answering stops the run as could
not run), never authenticated and never validated against a schema (an acknowledgement's
body is not shown). A private CA for an HTTPS endpoint is given with ``ca_file``.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from conformance.contract import clauses
from conformance.contract.failures import ConformanceFailure, check
from conformance.contract.schemas import default_registry
from conformance.exchange.client import ApiResponse, ExchangeLog, TargetClient
from conformance.exchange.deadline import NetworkTransport
from conformance.exchange.evidence import Redactor
from conformance.exchange.run_state import ExchangeState
from conformance.webhooks.delivering.deliveries import Delivery, signed
from conformance.webhooks.delivering.event_bodies import make_test_event
from conformance.webhooks.delivering.signing_key import SigningKey

__all__ = ["Receiver", "read_ca_file", "receiver_client"]

# How the client describes an exchange whose connection closed (or carried no valid HTTP)
# after the delivery was sent (``exchange/client.py``): the endpoint reacted, with no answer.
_CONNECTION_BROKE = "the connection broke"
_TIMED_OUT = "timed out"
# Deliveries go to the endpoint's absolute URL; the client's base URL only names relative
# paths and the curl line's $CONFORMANCE_BASE_URL prefix, neither of which a delivery has.
_NO_BASE_URL = "(a webhook endpoint)"


def receiver_client(
    timeout: float,
    log: ExchangeLog,
    ca_file: str | None = None,
    state: ExchangeState | None = None,
) -> TargetClient:
    """The client deliveries are sent with: ``timeout`` seconds each, trusting ``ca_file``
    (a PEM bundle) besides the system's CAs when given; ``state`` is the session's."""
    network = (
        NetworkTransport(verify=ssl.create_default_context(cafile=ca_file))
        if ca_file
        else NetworkTransport()
    )
    return TargetClient(
        base_url=_NO_BASE_URL,
        credentials=None,
        timeout=timeout,
        registry=default_registry(),
        log=log,
        redactor=Redactor(),
        network=network,
        state=state,
    )


@dataclass(frozen=True, slots=True)
class Receiver:
    """A platform's webhook endpoint, reached as the service reaches it."""

    url: str
    key: SigningKey
    client: TargetClient

    def deliver(self, delivery: Delivery, *, probe: bool = True) -> ApiResponse:
        """POST one delivery; its answer (a failure if none arrives within the deadline).

        A delivery the endpoint gives no answer to within the deadline is followed by a
        signed TEST event: an endpoint that answers it is up, only slow on that delivery,
        so the failure is this case's (§6 Events) and the check goes on to the next case
        (the forgeries are still judged); an endpoint that answers neither counts toward
        the target's health, which stops the check as could not run. Without ``probe``
        (the first contact, itself a TEST event) the failure stands as it is."""
        __tracebackhide__ = True
        try:
            return self._post(delivery)
        except ConformanceFailure:
            exchange = self.client.log.last()
            timed_out = exchange is not None and (exchange.error or "").startswith(_TIMED_OUT)
            if not probe or exchange is None or not timed_out:
                raise
            if self.client.state.health.unreachable is not None or not self._answers_a_probe():
                raise
        raise ConformanceFailure(
            clauses.EVENTS,
            "a platform answers each delivery (a 2xx status on success); the endpoint gave no "
            f"answer to this delivery ({delivery.how}) within the deadline of "
            f"{self.client.timeout:g} s, though it answered a signed TEST event sent right "
            "after: it is up, and slow on this event",
            expected=f"an answer within {self.client.timeout:g} s",
            observed=exchange.error,
            hint="answer quickly (acknowledge, then process the event asynchronously), or give "
            "a longer --delivery-timeout if the service's own deadline allows it",
            exchange=exchange,
        )

    def _post(self, delivery: Delivery) -> ApiResponse:
        return self.client.post(
            self.url, content=delivery.body, headers=delivery.headers, auth=None, validate=False
        )

    def _answers_a_probe(self) -> bool:
        """Whether the endpoint answers a signed TEST event within the deadline (any
        status); an answer counts toward the target's health as answered."""
        try:
            self._post(signed(make_test_event(), self.key))
        except ConformanceFailure:
            return False
        return True

    def acknowledges(self, delivery: Delivery, what: str) -> ApiResponse:
        """Deliver, and fail unless the answer is 2xx (§6: "answer with a 2xx status on
        success"); ``what`` says which delivery, for the message."""
        __tracebackhide__ = True
        response = self.deliver(delivery)
        check(
            200 <= response.status < 300,
            clauses.EVENTS,
            f"a platform answers a signed event it processed with a 2xx status; {what} "
            f"({delivery.how}) was not acknowledged",
            expected="a 2xx status",
            observed=response.status,
            hint="check that the endpoint trusts the public key of --signing-key "
            "(conformance receiver --print-public-key) and accepts this event's type",
            exchange=response.exchange,
        )
        return response

    def notes_a_refusal(
        self, delivery: Delivery, what: str, advisory: Callable[[str], None]
    ) -> ApiResponse:
        """Deliver an event whose payload §6 does not show (its data is the kit's choice):
        an answer that is not 2xx is an advisory, never a failure."""
        response = self.deliver(delivery)
        if not 200 <= response.status < 300:
            advisory(
                f"{clauses.EVENTS}: the payload of {what} is not shown; the kit sent the record §2 "
                f"describes as its data, and the endpoint answered {response.status}. Check "
                "that the endpoint acknowledges this type with the payload the service sends."
            )
        return response

    def refuses(
        self, delivery: Delivery, what: str, advisory: Callable[[str], None]
    ) -> ApiResponse | None:
        """Deliver, and fail if the answer is 2xx (§5: "verify the signature ... reject on
        failure"); ``what`` says which delivery, for the message. §5 does not say how a
        platform rejects: an endpoint that closes the connection without an answer did not
        acknowledge, which is noted as an advisory (None is returned); no answer within the
        deadline stays a failure to answer."""
        __tracebackhide__ = True
        try:
            response = self.deliver(delivery)
        except ConformanceFailure:
            exchange = self.client.log.last()
            if exchange is None or not (exchange.error or "").startswith(_CONNECTION_BROKE):
                raise
            self.client.state.health.answered()  # it reacted to this delivery: not down
            advisory(
                f"{clauses.AUTHENTICATION}: {what} carrying {delivery.how} got no HTTP answer "
                f"({exchange.error}); counted as refused. An error status (401, say) tells "
                "the service plainly that the delivery was rejected."
            )
            return None
        check(
            not 200 <= response.status < 300,
            clauses.AUTHENTICATION,
            f"a platform verifies X-Service-Signature over the exact body and rejects a "
            f"delivery that fails; {what} carrying {delivery.how} was accepted",
            expected="a status that is not 2xx",
            observed=response.status,
            hint="verify the signature over the raw request bytes, before parsing, with the "
            "service's public key, and answer an error status when it does not verify",
            exchange=response.exchange,
        )
        return response


def read_ca_file(path: str) -> Path:
    """``path`` as a readable file, or ``ValueError`` saying why not."""
    file = Path(path).expanduser()
    if not file.is_file():
        raise ValueError(f"no such file: {file}")
    try:
        ssl.create_default_context(cafile=str(file))
    except (ssl.SSLError, OSError) as exc:
        raise ValueError(f"not a PEM bundle of CA certificates ({exc})") from None
    return file
