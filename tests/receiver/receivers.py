"""Webhook receivers written for the receiver check's self-tests: small loopback HTTP(S)
servers, one behaviour each.

- ``correct``: verifies ``X-Service-Signature`` over the exact body with the trusted key
  (401 otherwise), acknowledges every authentic event with 200, a repeated one too.
- ``skips-signature``: acknowledges every delivery, signed or not.
- ``reserialises``: verifies the signature over its own compact re-serialisation of the
  parsed body instead of the bytes received (a common bug).
- ``500-on-repeat``: verifies, but answers 500 to an event id it has already seen.
- ``unusual-but-conformant``: like ``correct``, but closes the connection without an answer
  on a signature that fails, and answers 422 to the event types whose payload §6 does not
  show (``CUSTOMER.*``, ``EXTERNAL_ACCOUNT.*``).
- ``either-encoding``: correct, verifying a DER or a raw r||s signature, answering 202 to
  payment events and 204 to the others, 400 to a failing signature.
- ``slow-within-deadline``: correct, but takes ``delay`` seconds on every card event.
- ``slow-cards``: correct, but takes ``delay`` seconds on every card event, beyond the
  check's deadline.
- Five that each make one mistake real receivers make, each acknowledging with 200:
  ``trusts-test-flag`` skips verification when the event carries ``"test": true``;
  ``remembers-signatures`` accepts a signature that verified once on any later body;
  ``known-id-first`` answers 200 to an event id already seen, before verifying;
  ``sorted-keys-fallback`` verifies again over a sorted-keys compact re-serialisation when
  the bytes fail; ``strips-whitespace`` verifies the body without surrounding whitespace.
- ``never-answers``: reads the request and never answers (until the server stops).
- ``hangs-after-first``: answers its first delivery like ``correct``, then never answers
  (a check can get past its first contact and be stopped in a test).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from conformance.ground.public_keys import load_public_key
from conformance.webhooks.sink.signatures import SIGNATURE_HEADER, verify_signature
from conformance.webhooks.sink.tls import generate_tls_material, server_ssl_context

BEHAVIOURS = (
    "correct",
    "skips-signature",
    "reserialises",
    "500-on-repeat",
    "unusual-but-conformant",
    "either-encoding",
    "slow-within-deadline",
    "slow-cards",
    "trusts-test-flag",
    "remembers-signatures",
    "known-id-first",
    "sorted-keys-fallback",
    "strips-whitespace",
    "never-answers",
    "hangs-after-first",
)


@dataclass
class _State:
    behaviour: str
    public_pem: str
    delay: float = 0.0
    seen: set[str] = field(default_factory=set)
    verified_signatures: set[str] = field(default_factory=set)
    deliveries: int = 0
    hanging: threading.Event = field(default_factory=threading.Event)  # a request is held
    stopping: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _event_id(body: bytes) -> str | None:
    try:
        envelope = json.loads(body)
    except ValueError:
        return None
    return envelope.get("id") or envelope.get("webhookId") if isinstance(envelope, dict) else None


def _verifies(state: _State, body: bytes, signature: str | None) -> bool:
    """Whether this receiver takes the delivery as authentic (its mistake included)."""
    key = load_public_key(state.public_pem)
    behaviour = state.behaviour
    try:
        parsed = json.loads(body)
    except ValueError:
        parsed = None
    if behaviour == "skips-signature":
        return True
    if behaviour == "trusts-test-flag" and isinstance(parsed, dict) and parsed.get("test"):
        return True
    if behaviour == "remembers-signatures" and signature in state.verified_signatures:
        return True
    if behaviour == "reserialises":
        signed_bytes = json.dumps(parsed, separators=(",", ":"), ensure_ascii=False).encode()
    elif behaviour == "strips-whitespace":
        signed_bytes = body.strip()
    else:
        signed_bytes = body
    if verify_signature(key, signed_bytes, signature):
        if signature is not None:
            state.verified_signatures.add(signature)
        return True
    if behaviour == "sorted-keys-fallback" and parsed is not None:
        canonical = json.dumps(parsed, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
        return bool(verify_signature(key, canonical.encode(), signature))
    return False


def _answer(state: _State, body: bytes, signature: str | None) -> int | None:
    """The status this receiver answers a delivery with (None: no answer, the connection
    is closed)."""
    event_id = _event_id(body)
    if state.behaviour == "known-id-first":
        with state.lock:
            if event_id in state.seen:
                return 200  # "already processed": answered before the signature is checked
    if state.behaviour == "reserialises":
        try:
            json.loads(body)
        except ValueError:
            return 400
    if not _verifies(state, body, signature):
        if state.behaviour == "unusual-but-conformant":
            return None
        return 400 if state.behaviour == "either-encoding" else 401
    with state.lock:
        repeated = event_id in state.seen
        state.seen.add(str(event_id))
    if repeated and state.behaviour == "500-on-repeat":
        return 500
    kind = str(json.loads(body).get("type", ""))
    if state.behaviour in ("slow-cards", "slow-within-deadline") and kind.startswith("CARD_"):
        time.sleep(state.delay)
    if state.behaviour == "unusual-but-conformant" and kind.startswith(
        ("CUSTOMER.", "EXTERNAL_ACCOUNT.")
    ):
        return 422
    if state.behaviour == "either-encoding":
        return 202 if "PAYMENT" in kind else 204
    return 200


def _handler(state: _State) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with state.lock:
                state.deliveries += 1
                first = state.deliveries == 1
            if state.behaviour == "never-answers" or (
                state.behaviour == "hangs-after-first" and not first
            ):
                state.hanging.set()
                state.stopping.wait()
                return
            status = _answer(state, body, self.headers.get(SIGNATURE_HEADER))
            if status is None:
                self.close_connection = True
                return
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:  # quiet
            pass

    return Handler


@dataclass(frozen=True)
class RunningReceiver:
    """A receiver being served: its URL, the CA file of an HTTPS one, and its state."""

    url: str
    ca_file: Path | None
    state: _State


@contextmanager
def serving(
    behaviour: str, public_pem: str, *, tls_dir: Path | None = None, delay: float = 0.0
) -> Iterator[RunningReceiver]:
    """Serve ``behaviour`` on a free loopback port (HTTPS with a throwaway CA written to
    ``tls_dir`` when given) until the block ends; ``delay``: the slow ones' seconds."""
    state = _State(behaviour, public_pem, delay)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    ca_file = None
    if tls_dir is not None:
        material = generate_tls_material()
        ca_file = tls_dir / "receiver-ca.pem"
        ca_file.write_bytes(material.ca_pem)
        server.socket = server_ssl_context(material).wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    scheme = "https" if tls_dir is not None else "http"
    try:
        yield RunningReceiver(f"{scheme}://127.0.0.1:{server.server_port}/webhooks", ca_file, state)
    finally:
        state.stopping.set()
        server.shutdown()
        server.server_close()
