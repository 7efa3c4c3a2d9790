"""The webhook delivery worker: an asyncio task that posts due outbox rows.

It sleeps on an ``asyncio.Event`` that enqueues set, with a timeout for the next due
retry, so it never polls. Deliveries to one endpoint go one at a time in outbox order;
different endpoints do not wait for each other, so a dead or slow endpoint delays only its
own events. Each attempt has one deadline from connecting to the end of the answer
(``--webhook-timeout``), so an endpoint that trickles its answer is cut, and a platform has
at most ``MAX_ENDPOINTS_PER_PLATFORM`` endpoints in flight, so no platform's old endpoints
can take every connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter

import h11
import httpx
from cryptography.hazmat.primitives.asymmetric import ec

from reference.kernel import variant
from reference.kernel.seams import seam
from reference.kernel.settings import ServerSettings
from reference.kernel.sync_calls import call_sync
from reference.webhooks.connect_guard import RefusedAddress, guarded_transport
from reference.webhooks.outbox import Outbox, OutboxRow
from reference.webhooks.plain_http import PlainHttpPoster, environment_names_http_proxy
from reference.webhooks.signing import sign

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Service-Signature"
_ERROR_PAUSE_S = 1.0
# A platform's events go to its current endpoint, but events queued before a change of
# endpoint still go to the old one: a few endpoints per platform at once, not unbounded.
MAX_ENDPOINTS_PER_PLATFORM = 4
_MAX_ANSWER_BYTES = 64 * 1024

SIGNING_KEY = seam("webhooks.signing_key", "the private key deliveries are signed with")
DELIVERY_HEADERS = seam(
    "webhooks.delivery_headers",
    "the headers a delivery is posted with, X-Service-Signature among them (context: row)",
)
WIRE_BODY = seam(
    "webhooks.wire_body",
    "the bytes posted for a delivery: exactly the signed outbox body (context: row)",
)
POSTS = seam(
    "webhooks.posts",
    "the requests one delivery posts, in order, as (headers, body): the signed delivery alone"
    " (context: row)",
)


class DeliveryWorker:
    """Delivers outbox rows; ``start`` and ``stop`` run inside the app lifespan."""

    def __init__(
        self, outbox: Outbox, key: ec.EllipticCurvePrivateKey, settings: ServerSettings
    ) -> None:
        self._outbox = outbox
        self._settings = settings
        self._key = settings.seams.apply(SIGNING_KEY, key)
        self._wake = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: httpx.AsyncClient | None = None
        self._plain: PlainHttpPoster | None = None  # http:// endpoints, when no proxy applies
        self._main: asyncio.Task[None] | None = None
        self._in_flight: dict[str, asyncio.Task[None]] = {}  # by endpoint URL
        self._per_platform: Counter[str] = Counter()  # endpoints in flight

    async def start(self) -> None:
        """Begin delivering; rows left over from an earlier run are due at once."""
        self._loop = asyncio.get_running_loop()
        timeout = self._settings.webhook_timeout_s
        if environment_names_http_proxy():
            # the proxy resolves and connects: the address check cannot see where to
            self._client = httpx.AsyncClient(timeout=timeout, follow_redirects=False)
        else:
            transport = guarded_transport(self._settings.allow_private_webhooks)
            self._client = httpx.AsyncClient(
                timeout=timeout, follow_redirects=False, transport=transport
            )
            self._plain = PlainHttpPoster(self._client.headers.raw, timeout)
        self._outbox.notify_with(self.wake)
        self._main = asyncio.create_task(self._run(), name="webhook-delivery")

    async def stop(self) -> None:
        """Stop delivering; attempts cut short stay pending and run after a restart."""
        self._outbox.notify_with(lambda: None)
        tasks = [t for t in (self._main, *self._in_flight.values()) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._plain is not None:
            self._plain.close()
        if self._client is not None:
            await self._client.aclose()

    def wake(self) -> None:
        """Tell the worker new rows exist; safe to call from any thread."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._wake.set()
        else:
            loop.call_soon_threadsafe(self._wake.set)

    async def _run(self) -> None:
        while True:
            try:
                timeout = await self._dispatch_due()
            except Exception:
                # A broken row or query must not end deliveries for the whole process.
                log.exception("webhook worker failed; retrying in %ss", _ERROR_PAUSE_S)
                timeout = _ERROR_PAUSE_S
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)

    async def _dispatch_due(self) -> float | None:
        """Start a delivery for each due row; return how long to sleep if nothing wakes us."""
        # Clear before reading: a row enqueued after the read sets the event again.
        self._wake.clear()
        now = time.time()
        side_by_side = self._settings.variant
        due = await call_sync(self._settings, self._outbox.due, now, side_by_side=side_by_side)
        for row in due:
            # the variant delivers an endpoint's events side by side (kernel/variant.py)
            lane = f"{row.target_url} {row.event_id}" if self._settings.variant else row.target_url
            busy = lane in self._in_flight
            if busy or self._per_platform[row.platform_id] >= MAX_ENDPOINTS_PER_PLATFORM:
                continue  # its turn comes when a delivery ends, which wakes us
            self._per_platform[row.platform_id] += 1
            self._in_flight[lane] = asyncio.create_task(self._deliver(row, lane))
        next_at = await call_sync(self._settings, self._outbox.next_attempt_after, now)
        return None if next_at is None else max(0.0, next_at - time.time())

    async def _deliver(self, row: OutboxRow, lane: str) -> None:
        try:
            if self._settings.variant:
                await asyncio.sleep(variant.delivery_delay())
            status, error = await self._post(row)
            if status is not None and 200 <= status < 300:
                await call_sync(self._settings, self._outbox.record_delivered, row.event_id, status)
            else:
                await call_sync(
                    self._settings,
                    self._outbox.record_failed_attempt,
                    row,
                    status,
                    error,
                    time.time(),
                )
        except Exception:
            log.exception("recording delivery of %s failed", row.event_id)
        finally:
            self._in_flight.pop(lane, None)
            self._per_platform[row.platform_id] -= 1
            self._wake.set()  # the row's next attempt time changed

    async def _post(self, row: OutboxRow) -> tuple[int | None, str]:
        assert self._client is not None
        seams = self._settings.seams
        headers = {"Content-Type": "application/json", SIGNATURE_HEADER: sign(self._key, row.body)}
        headers = seams.apply(DELIVERY_HEADERS, headers, row=row)
        body = seams.apply(WIRE_BODY, row.body, row=row)
        status = None
        deadline = self._settings.webhook_timeout_s
        try:
            # the last request's answer is the delivery's
            for sent_headers, sent_body in seams.apply(POSTS, [(headers, body)], row=row):
                # one deadline for the whole attempt: the clients' own timeouts bound each
                # read, which an endpoint sending a byte at a time never trips
                async with asyncio.timeout(deadline):
                    status = await self._send(row.target_url, sent_headers, sent_body)
        except TimeoutError:
            log.info(
                "webhook %s to %s: no whole answer within %ss",
                row.event_id,
                row.target_url,
                deadline,
            )
            return None, f"no whole answer within {deadline:g}s"
        except (httpx.HTTPError, OSError, h11.ProtocolError) as exc:
            if isinstance(exc.__cause__, RefusedAddress):  # worth an operator's attention
                log.warning("webhook %s to %s refused: %s", row.event_id, row.target_url, exc)
                return None, f"refused: {exc}"
            log.info("webhook %s to %s failed: %r", row.event_id, row.target_url, exc)
            return None, f"{type(exc).__name__}: {exc}"
        return status, f"HTTP {status}"

    async def _send(self, url: str, headers: dict[str, str], body: bytes) -> int:
        assert self._client is not None
        if self._plain is not None and self._plain.handles(url):
            return await self._plain.post(url, body, headers)
        request = self._client.build_request("POST", url, content=body, headers=headers)
        response = await self._client.send(request, stream=True)
        try:
            # The status is the answer. A short body is read to its end, so the connection
            # is kept for the next delivery; a longer one is dropped with the connection.
            read = 0
            async for chunk in response.aiter_raw():
                read += len(chunk)
                if read > _MAX_ANSWER_BYTES:
                    break
        finally:
            await response.aclose()
        return response.status_code
