"""The receiver over real loopback HTTP(S): raw storage, control API, limits, errors, TLS."""

from __future__ import annotations

import ssl
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from conformance.webhooks.sink import SinkServer
from conformance.webhooks.sink._addresses import client_is_loopback
from conformance.webhooks.sink.server import MAX_BODY_BYTES, MAX_WAIT_S

from .sink_helpers import envelope


def _deliveries(http: httpx.Client, sink: SinkServer, **params: Any) -> list[dict[str, Any]]:
    response = http.get(f"{sink.control_url}/deliveries", params=params)
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["deliveries"]
    return items


def test_raw_bytes_and_headers_are_stored_exactly(sink: SinkServer, http: httpx.Client) -> None:
    body = b'{"id": "Webhook:1",   "type": "TEST"}\n\xff'  # spacing and a non-UTF-8 byte
    response = http.post(
        f"{sink.url}/sub/path?x=1",
        content=body,
        headers={"Content-Type": "application/json", "X-Service-Signature": "c2ln"},
    )
    assert (response.status_code, response.json()) == (200, {})
    [item] = sink.store.since(0)
    assert item.body == body
    assert item.method == "POST"
    assert item.path == "/hooks/sub/path?x=1"
    assert item.headers["x-service-signature"] == "c2ln"
    assert item.headers["content-type"] == "application/json"
    assert item.received_at == pytest.approx(time.time(), abs=60)


def test_a_chunked_body_is_stored_whole(sink: SinkServer, http: httpx.Client) -> None:
    parts = [b'{"type": ', b'"TEST", ', b'"webhookId": "Webhook:c"}']
    response = http.post(sink.url, content=iter(parts))
    assert response.status_code == 200
    assert sink.store.since(0)[0].body == b"".join(parts)


def test_the_answer_status_is_configurable(sink: SinkServer, http: httpx.Client) -> None:
    sink.response_status = 503
    assert http.post(sink.url, content=b"{}").status_code == 503
    assert len(sink.store) == 1
    with pytest.raises(ValueError, match="response_status"):
        sink.response_status = 42


def test_oversized_bodies_get_413_and_are_not_stored(http: httpx.Client) -> None:
    assert MAX_BODY_BYTES == 5 * 1024 * 1024
    with SinkServer(max_body_bytes=1024) as small:
        assert http.post(small.url, content=b"x" * 2048).status_code == 413
        assert http.post(small.url, content=iter([b"x" * 800, b"x" * 800])).status_code == 413
        assert http.post(small.url, content=b"x" * 1024).status_code == 200
        assert [len(d.body) for d in small.store.since(0)] == [1024]


def test_other_methods_and_paths_are_refused(sink: SinkServer, http: httpx.Client) -> None:
    wrong_method = http.get(sink.url)
    assert (wrong_method.status_code, wrong_method.headers["allow"]) == (405, "POST")
    assert http.post(sink.url.replace("/hooks", "/elsewhere"), content=b"{}").status_code == 404
    assert http.post(f"{sink.control_url}/deliveries", content=b"{}").status_code == 405
    assert http.get(f"{sink.control_url}/nothing").status_code == 404
    bad = http.get(f"{sink.control_url}/deliveries", params={"after": "x"})
    assert bad.status_code == 400
    assert len(sink.store) == 0


def test_health_and_cursor(sink: SinkServer, http: httpx.Client) -> None:
    for n in range(3):
        http.post(sink.url, content=envelope("TEST", event_id=f"Webhook:{n}"))
    assert http.get(f"{sink.control_url}/health").json() == {"status": "ok", "deliveries": 3}
    assert [d["seq"] for d in _deliveries(http, sink, after=1)] == [2, 3]
    assert _deliveries(http, sink, after=3, wait=0) == []


def test_a_long_poll_returns_as_soon_as_a_delivery_arrives(
    sink: SinkServer, http: httpx.Client
) -> None:
    def deliver_once_the_poll_waits() -> None:
        assert sink.store.wait_for_waiters(1, timeout=10)
        with httpx.Client(trust_env=False) as other:
            other.post(sink.url, content=envelope("TEST", event_id="Webhook:lp"))

    sender = threading.Thread(target=deliver_once_the_poll_waits)
    sender.start()
    started = time.monotonic()
    items = _deliveries(http, sink, after=0, wait=20)
    elapsed = time.monotonic() - started
    sender.join(timeout=10)
    assert [d["seq"] for d in items] == [1]
    assert elapsed < 10, f"the long poll held {elapsed:.1f} s after the delivery arrived"


def test_a_long_poll_without_news_ends_at_its_wait(sink: SinkServer, http: httpx.Client) -> None:
    assert MAX_WAIT_S == 30
    assert _deliveries(http, sink, after=0, wait=0.05) == []


def test_handler_errors_are_reraised_by_check_errors(
    sink: SinkServer, http: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_add(*args: object, **kwargs: object) -> None:
        raise RuntimeError("store is broken")

    monkeypatch.setattr(sink.store, "add", broken_add)
    assert http.post(sink.url, content=b"{}").status_code == 500
    assert len(sink.errors) == 1
    with pytest.raises(RuntimeError, match="store is broken"):
        sink.check_errors()
    sink.check_errors()  # each error is raised once


def test_several_handler_errors_are_raised_as_a_group(
    sink: SinkServer, http: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_add(*args: object, **kwargs: object) -> None:
        raise KeyError("boom")

    monkeypatch.setattr(sink.store, "add", broken_add)
    for _ in range(2):
        http.post(sink.url, content=b"{}")
    with pytest.raises(BaseExceptionGroup, match="2 errors"):
        sink.check_errors()


def test_life_cycle_addresses_and_stop(http: httpx.Client) -> None:
    server = SinkServer(public_url="https://tunnel.example/hooks")
    with pytest.raises(RuntimeError, match="not started"):
        _ = server.url + server.control_url
    with server:
        assert server.url == "https://tunnel.example/hooks"
        assert server.control_url == f"http://127.0.0.1:{server.port}/_sink"
        assert server.ca_pem is None and server.ca_file is None
        waiter = threading.Thread(
            target=http.get,
            args=(f"{server.control_url}/deliveries",),
            kwargs={"params": {"wait": 25}},
        )
        waiter.start()
        assert server.store.wait_for_waiters(1, timeout=5)
    waiter.join(timeout=5)
    assert not waiter.is_alive(), "stop() must wake long polls"
    server.stop()  # idempotent
    with pytest.raises(RuntimeError, match="cannot be restarted"):
        server.start()
    with pytest.raises(ValueError, match="public_url"):
        SinkServer(public_url="ftp://x")


def test_the_control_api_answers_loopback_clients_only() -> None:
    assert client_is_loopback(("127.0.0.1", 1))
    assert client_is_loopback(("::1", 1, 0, 0))
    assert client_is_loopback(("::ffff:127.0.0.1", 1, 0, 0))
    assert not client_is_loopback(("10.0.0.7", 1))
    assert not client_is_loopback(("2001:db8::1", 1, 0, 0))


@pytest.fixture
def https_sink() -> Iterator[SinkServer]:
    with SinkServer(https=True) as server:
        yield server
        server.check_errors()


def test_https_mode_serves_with_the_throwaway_ca(https_sink: SinkServer) -> None:
    assert https_sink.url.startswith("https://127.0.0.1:")
    assert https_sink.ca_pem is not None and b"BEGIN CERTIFICATE" in https_sink.ca_pem
    assert https_sink.ca_file is not None and https_sink.ca_file.read_bytes() == https_sink.ca_pem
    trusting = ssl.create_default_context(cafile=str(https_sink.ca_file))
    with httpx.Client(verify=trusting, trust_env=False, timeout=10) as client:
        assert client.post(https_sink.url, content=b'{"type": "TEST"}').status_code == 200
        localhost = https_sink.url.replace("127.0.0.1", "localhost")
        assert client.post(localhost, content=b"{}").status_code == 200
    with (
        httpx.Client(trust_env=False, timeout=10) as untrusting,
        pytest.raises(httpx.ConnectError),
    ):
        untrusting.post(https_sink.url, content=b"{}")
    # The control API stays plain HTTP on loopback, so readers need no CA.
    assert https_sink.control_url.startswith("http://127.0.0.1:")
    with httpx.Client(trust_env=False, timeout=10) as plain:
        listed = plain.get(f"{https_sink.control_url}/deliveries").json()["deliveries"]
    assert [d["body_b64"] for d in listed] == ["eyJ0eXBlIjogIlRFU1QifQ==", "e30="]


def test_the_ca_file_is_removed_at_stop() -> None:
    with SinkServer(https=True) as server:
        ca_file = server.ca_file
        assert ca_file is not None and ca_file.exists()
    assert not ca_file.exists()
