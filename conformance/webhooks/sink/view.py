"""The reader of the sink, used by tests in any process (xdist workers included).

A :class:`SinkView` talks to the receiver's control API over loopback HTTP. It caches the
deliveries it has seen by ``seq`` and asks only for newer ones. Waiting is a long poll with
a deadline: the receiver holds the request on its store's condition until something new
arrives, so a view never sleeps.

Only authentic deliveries count. With the target's webhook public key, the view checks each
delivery's ``X-Service-Signature`` once, as it arrives; a delivery whose signature fails
(forged, re-serialised, unsigned) is set aside: it satisfies no wait, rules none out, and
takes no part in deduplication, ordering or the events a test reads, so a forged copy that
arrives first with an authentic delivery's event id cannot hide it. What was set aside is
read with :meth:`SinkView.set_aside`, for the one report of the webhooks part. Without a key
nothing can be told apart, and every delivery counts.
"""

from __future__ import annotations

import ssl
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import httpx

from conformance.contract.stable_fields import RESOURCE_EVENTS
from conformance.exchange.ledger import Disagreement, Ledger, Sighting, current_test
from conformance.exchange.waits import RanOut
from conformance.ground.public_keys import PublicKey, load_public_key

from .awaited import Awaited
from .server import MAX_WAIT_S
from .signatures import SignatureCheck, verify_signature
from .store import Delivery, dedupe_by_event_id

__all__ = ["SetAside", "SinkTimeout", "SinkUnavailable", "SinkView"]

_SUMMARY_LIMIT = 20


@dataclass(frozen=True, slots=True)
class SetAside:
    """A delivery whose signature failed verification, and why."""

    delivery: Delivery
    check: SignatureCheck

    def summary(self) -> str:
        """The delivery's summary line and the reason its signature failed."""
        return f"{self.delivery.summary()}: {self.check.reason}"


class SinkTimeout(AssertionError):
    """No delivery matching a description arrived before the deadline.

    Attributes:
        description: what the test waited for.
        timeout: how long it waited, in seconds.
        arrived: every authentic delivery the view had seen when it gave up.
        matching_set_aside: deliveries that matched what was awaited but whose signature
            failed, so they did not count.
        awaited: what the wait awaited, when it said (its failure is charged to it).
        ran_out: where the failure is recorded when the wait is taken to have run out for a
            thing the target does not send (a watched view sets it): later waits for the
            same thing end at once with it.
    """

    def __init__(
        self,
        description: str,
        timeout: float,
        arrived: Sequence[Delivery],
        matching_set_aside: Sequence[SetAside] = (),
        awaited: Awaited | None = None,
    ) -> None:
        self.description = description
        self.timeout = timeout
        self.arrived = tuple(arrived)
        self.matching_set_aside = tuple(matching_set_aside)
        self.awaited = awaited
        self.ran_out: RanOut | None = None
        super().__init__(self._message())

    def _message(self) -> str:
        head = f"webhook sink: timed out after {self.timeout:g} s waiting for {self.description}"
        if not self.arrived:
            body = "; no delivery arrived at all."
        else:
            shown = self.arrived[-_SUMMARY_LIMIT:]
            which = (
                f"the last {len(shown)} of {len(self.arrived)}"
                if len(shown) < len(self.arrived)
                else f"all {len(shown)}"
            )
            lines = "\n".join(f"  {d.summary()}" for d in shown)
            body = f"; deliveries that did arrive ({which}):\n{lines}"
        if self.matching_set_aside:
            lines = "\n".join(f"  {s.summary()}" for s in self.matching_set_aside[:_SUMMARY_LIMIT])
            body += (
                f"\n{len(self.matching_set_aside)} matching deliveries were set aside, their "
                f"X-Service-Signature failing verification:\n{lines}"
            )
        hint = (
            "\nNext step: check that the target's webhookEndpoint is the sink URL, that the "
            "target can reach it, and that the triggering call succeeded."
        )
        return head + body + hint


class SinkRuledOut(SinkTimeout):
    """A delivery arrived that rules out the awaited one (so waiting longer is pointless)."""

    def __init__(
        self, description: str, waited: float, arrived: Sequence[Delivery], ruling: Delivery
    ) -> None:
        self.ruling = ruling
        super().__init__(description, waited, arrived)

    def _message(self) -> str:
        return (
            f"webhook sink: {self.ruling.summary()} arrived, which rules out "
            f"{self.description} (after {self.timeout:.1f} s)"
        )


class SinkUnavailable(RuntimeError):
    """The receiver's control API could not be reached or answered badly."""


class SinkView:
    """Read deliveries from a running :class:`~conformance.webhooks.sink.server.SinkServer`.

    Args:
        control_url: the sink's ``control_url`` (``http://127.0.0.1:<port>/_sink``).
        public_key: the target's webhook public key (key object, PEM text/bytes, or path);
            without it :meth:`signature` reports every delivery as unverifiable.
        timeout_s: the HTTP timeout for each control call, on top of any long-poll wait.
        ledger_scope: the platform (base URL, token id) whose events these are: each
            authentic payment event feeds the cross-check ledger, and a test that reads
            one that disagrees with what the target stated before fails.
    """

    def __init__(
        self,
        control_url: str,
        public_key: PublicKey | str | bytes | None = None,
        timeout_s: float = 5.0,
        *,
        transport: httpx.BaseTransport | None = None,
        ledger_scope: tuple[str, str] | None = None,
        ledger: Ledger | None = None,
    ) -> None:
        if timeout_s <= 0:
            raise ValueError(f"SinkView: timeout_s must be > 0, got {timeout_s!r}")
        self.control_url = control_url.rstrip("/")
        self.public_key: PublicKey | None = (
            load_public_key(public_key) if isinstance(public_key, str | bytes) else public_key
        )
        self.timeout_s = timeout_s
        self.ledger = ledger  # the session's cross-check ledger, fed with ``ledger_scope``
        # the control API is plain HTTP on loopback: a context that trusts no CA (any TLS
        # fails) spares reading the whole CA bundle for each view, 20 ms of CPU
        no_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        self._client = httpx.Client(
            trust_env=False, timeout=timeout_s, transport=transport, verify=no_tls
        )
        self._cache: list[Delivery] = []
        # seq -> the signature check of each cached delivery (with a key only)
        self._checks: dict[int, SignatureCheck] = {}
        self._lock = threading.Lock()
        self.ledger_scope = ledger_scope
        self._disagreements: dict[int, Disagreement] = {}  # seq -> what its data broke

    # -- transport --------------------------------------------------------------------

    def _get(self, path: str, *, params: dict[str, str] | None = None, wait: float = 0.0) -> Any:
        url = f"{self.control_url}{path}"
        timeout = httpx.Timeout(self.timeout_s, read=self.timeout_s + wait)
        try:
            response = self._client.get(url, params=params, timeout=timeout)
        except httpx.HTTPError as exc:
            raise SinkUnavailable(
                f"webhook sink control API at {url} did not answer: {type(exc).__name__}: {exc}"
            ) from exc
        if response.status_code != 200:
            raise SinkUnavailable(
                f"webhook sink control API at {url} answered {response.status_code}: "
                f"{response.text[:200]}"
            )
        return response.json()

    def _poll(self, wait: float) -> None:
        """Fetch deliveries newer than the cache, waiting up to ``wait`` s for the first."""
        wait = min(max(wait, 0.0), MAX_WAIT_S)
        after = self.last_seq
        payload = self._get(
            "/deliveries", params={"after": str(after), "wait": f"{wait:.3f}"}, wait=wait
        )
        fetched = [Delivery.from_json_dict(item) for item in payload["deliveries"]]
        checks = {d.seq: self._verify(d) for d in fetched} if self.public_key else {}
        with self._lock:
            last = self._cache[-1].seq if self._cache else 0
            for delivery in fetched:
                if delivery.seq > last:
                    self._cache.append(delivery)
                    if checks:
                        self._checks[delivery.seq] = checks[delivery.seq]
                        self._cross_check(delivery)
                    last = delivery.seq

    def _cross_check(self, delivery: Delivery) -> None:
        """Feed an authentic payment event's data (the Transaction) to the ledger, once."""
        kind = delivery.event_type or ""
        if self.ledger is None or self.ledger_scope is None:
            return
        if not self._checks[delivery.seq].valid:
            return
        body = delivery.json
        if kind.startswith(RESOURCE_EVENTS) and isinstance(body, dict):
            seen = Sighting("WEBHOOK", f"{kind} {delivery.event_id}", None, current_test(),
                            time.time())  # fmt: skip
            found = self.ledger.observe(self.ledger_scope, body.get("data"), seen, event=True)
            if found:
                self._disagreements[delivery.seq] = found[0]

    def _agree(self, deliveries: Sequence[Delivery]) -> None:
        """Fail the test reading ``deliveries`` if one's data disagrees with an earlier
        statement of the same resource (the ledger found it as the delivery arrived)."""
        __tracebackhide__ = True
        for delivery in deliveries:
            found = self._disagreements.get(delivery.seq)
            if found is not None:
                failure = found.failure()
                failure.args = (f"{failure.args[0]}\n  event: {delivery.summary()}",)
                raise failure

    def _verify(self, delivery: Delivery) -> SignatureCheck:
        if self.public_key is None:
            return SignatureCheck(False, "no webhook public key configured")
        return verify_signature(self.public_key, delivery.body, delivery.signature_header)

    def _authentic(self, delivery: Delivery) -> bool:
        """Whether a cached delivery counts: its signature verifies, or there is no key."""
        check = self._checks.get(delivery.seq)
        return check is None or check.valid

    @property
    def last_seq(self) -> int:
        """The newest ``seq`` this view has seen (0 before the first read)."""
        with self._lock:
            return self._cache[-1].seq if self._cache else 0

    def health(self) -> dict[str, Any]:
        """The control API's health answer (raises :class:`SinkUnavailable` if down)."""
        result: dict[str, Any] = self._get("/health")
        return result

    # -- reading ----------------------------------------------------------------------

    def deliveries(self) -> list[Delivery]:
        """Every authentic delivery so far, in arrival order (every delivery without a key)."""
        self._poll(0.0)
        with self._lock:
            return [d for d in self._cache if self._authentic(d)]

    def received(self) -> list[Delivery]:
        """Every delivery so far as it arrived, those set aside included."""
        self._poll(0.0)
        with self._lock:
            return list(self._cache)

    def set_aside(self, after: int = 0) -> list[SetAside]:
        """The deliveries (``seq > after``) whose signature failed verification, and why."""
        self._poll(0.0)
        with self._lock:
            return [
                SetAside(d, self._checks[d.seq])
                for d in self._cache
                if d.seq > after and not self._authentic(d)
            ]

    def mark(self) -> int:
        """The current newest ``seq``; pass it as ``after=`` to wait only for later ones."""
        self._poll(0.0)
        return self.last_seq

    def wait_for(
        self,
        predicate: Callable[[Delivery], bool],
        *,
        timeout: float,
        description: str,
        after: int = 0,
        rules_out: Callable[[Delivery], bool] | None = None,
        set_aside_too: bool = False,
        awaited: Awaited | None = None,
    ) -> Delivery:
        """Return the first authentic delivery (by arrival, ``seq > after``) matching
        ``predicate`` (with ``set_aside_too``, the first delivery, authentic or not).

        Deliveries that arrived before the call count. Long-polls until the deadline, then
        raises :class:`SinkTimeout` naming ``description``, the timeout and what arrived;
        raises :class:`SinkRuledOut` at once when a delivery matching ``rules_out`` arrives.
        """
        return self.wait_for_all(
            predicate, 1, timeout=timeout, description=description, after=after,
            rules_out=rules_out, set_aside_too=set_aside_too, awaited=awaited,
        )[0]  # fmt: skip

    def wait_for_all(
        self,
        predicate: Callable[[Delivery], bool],
        count: int,
        *,
        timeout: float,
        description: str,
        after: int = 0,
        rules_out: Callable[[Delivery], bool] | None = None,
        set_aside_too: bool = False,
        awaited: Awaited | None = None,
    ) -> list[Delivery]:
        """Wait until ``count`` distinct authentic events match; return every match seen by
        then (with ``set_aside_too``, deliveries whose signature fails match as well).
        ``awaited`` says what the predicate awaits: a timeout carries it, to be charged to
        its requirement (a watched view, ``webhooks/delivery_health.py``, does not wait
        again for a thing an earlier wait ran out for).

        Matches are deduplicated by event (a redelivery, the same id, type and record,
        counts once, first arrival kept; :attr:`Delivery.event_key`).
        A delivery matching ``rules_out`` (an event that makes the awaited one impossible)
        ends the wait at once with :class:`SinkRuledOut`. A delivery set aside (its
        signature fails) neither matches nor rules out; on a timeout, those that would have
        matched are named in the :class:`SinkTimeout`.
        """
        if count < 1:
            raise ValueError(f"wait_for_all: count must be >= 1, got {count!r}")
        started = time.monotonic()
        deadline = started + max(timeout, 0.0)
        matches: list[Delivery] = []
        forged: list[SetAside] = []
        seen: set[tuple[str | None, str | None, str | None]] = set()  # redeliveries count once
        checked = after
        self._poll(0.0)
        while True:
            with self._lock:
                fresh = [(d, self._authentic(d)) for d in self._cache if d.seq > checked]
            for delivery, authentic in fresh:
                checked = delivery.seq
                if not authentic and not set_aside_too:
                    if predicate(delivery):
                        forged.append(SetAside(delivery, self._checks[delivery.seq]))
                    continue
                if not predicate(delivery):
                    if rules_out is not None and rules_out(delivery):
                        arrived = self._authentic_after(after)
                        waited = time.monotonic() - started
                        raise SinkRuledOut(description, waited, arrived, delivery)
                    continue
                if delivery.event_id is not None:
                    if delivery.event_key in seen:
                        continue
                    seen.add(delivery.event_key)
                matches.append(delivery)
            if len(matches) >= count:
                self._agree(matches)
                return matches
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                label = (
                    description
                    if count == 1
                    else f"{description} (wanted {count}, got {len(matches)})"
                )
                arrived = self._authentic_after(after)
                raise SinkTimeout(label, timeout, arrived, forged, awaited=awaited)
            if self.last_seq <= checked:  # else another thread fetched newer ones meanwhile
                self._poll(remaining)

    def _authentic_after(self, after: int) -> list[Delivery]:
        with self._lock:
            return [d for d in self._cache if d.seq > after and self._authentic(d)]

    def wait_for_event(
        self,
        event_type: str,
        resource_id: str | None = None,
        *,
        timeout: float,
        after: int = 0,
    ) -> Delivery:
        """Wait for an event of ``event_type`` (about ``resource_id`` when given)."""
        about = f" for {resource_id}" if resource_id else ""
        return self.wait_for(
            lambda d: (
                d.event_type == event_type and (resource_id is None or d.resource_id == resource_id)
            ),
            timeout=timeout,
            description=f"{event_type} event{about}",
            after=after,
        )

    def events_for(self, resource_id: str) -> list[Delivery]:
        """Authentic deliveries about ``resource_id`` so far, one per event id (first
        authentic arrival kept)."""
        found = dedupe_by_event_id(d for d in self.deliveries() if d.resource_id == resource_id)
        self._agree(found)
        return found

    def signature(self, delivery: Delivery) -> SignatureCheck:
        """Check the delivery's ``X-Service-Signature`` against the configured public key."""
        return self._verify(delivery)

    # -- life cycle -------------------------------------------------------------------

    def close(self) -> None:
        """Close the HTTP client."""
        self._client.close()

    def __enter__(self) -> SinkView:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
