"""The webhook delivery worker: an asyncio task that posts due outbox rows.

It sleeps on an ``asyncio.Event`` that enqueues set, with a timeout for the next due
retry, so it never polls. Deliveries to one endpoint go one at a time in outbox order;
different endpoints do not wait for each other, so a dead endpoint delays only its own
events.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import defaultdict

import h11
import httpx
from cryptography.hazmat.primitives.asymmetric import ec

from reference.kernel.seams import seam
from reference.kernel.settings import ServerSettings
from reference.kernel.sync_calls import call_sync
from reference.webhooks.outbox import Outbox, OutboxRow
from reference.webhooks.plain_http import PlainHttpPoster, environment_names_http_proxy
from reference.webhooks.signing import sign

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Service-Signature"
_TIMEOUT_S = 5.0
_ERROR_PAUSE_S = 1.0

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
        self._in_flight: dict[str, asyncio.Task[None]] = {}
        self._endpoint_locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)

    async def start(self) -> None:
        """Begin delivering; rows left over from an earlier run are due at once."""
        self._loop = asyncio.get_running_loop()
        self._client = httpx.AsyncClient(timeout=_TIMEOUT_S, follow_redirects=False)
        if not environment_names_http_proxy():
            self._plain = PlainHttpPoster(self._client.headers.raw, _TIMEOUT_S)
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
        for row in await call_sync(self._settings, self._outbox.due, now):
            if row.event_id not in self._in_flight:
                task = asyncio.create_task(self._deliver(row))
                self._in_flight[row.event_id] = task
        next_at = await call_sync(self._settings, self._outbox.next_attempt_after, now)
        return None if next_at is None else max(0.0, next_at - time.time())

    async def _deliver(self, row: OutboxRow) -> None:
        try:
            async with self._endpoint_locks[row.target_url]:
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
            self._in_flight.pop(row.event_id, None)
            self._wake.set()  # the row's next attempt time changed

    async def _post(self, row: OutboxRow) -> tuple[int | None, str]:
        assert self._client is not None
        seams = self._settings.seams
        headers = {"Content-Type": "application/json", SIGNATURE_HEADER: sign(self._key, row.body)}
        headers = seams.apply(DELIVERY_HEADERS, headers, row=row)
        body = seams.apply(WIRE_BODY, row.body, row=row)
        status = None
        try:
            # the last request's answer is the delivery's
            for sent_headers, sent_body in seams.apply(POSTS, [(headers, body)], row=row):
                status = await self._send(row.target_url, sent_headers, sent_body)
        except (httpx.HTTPError, OSError, h11.ProtocolError) as exc:
            log.info("webhook %s to %s failed: %r", row.event_id, row.target_url, exc)
            return None, f"{type(exc).__name__}: {exc}"
        return status, f"HTTP {status}"

    async def _send(self, url: str, headers: dict[str, str], body: bytes) -> int:
        assert self._client is not None
        if self._plain is not None and self._plain.handles(url):
            return await self._plain.post(url, body, headers)
        response = await self._client.post(url, content=body, headers=headers)
        return response.status_code
