"""Where ``webhookEndpoint`` may point (§2 PlatformConfig: an HTTPS URL): plain http only on
loopback, link-local addresses never, private ones only with ``--allow-private-webhooks``."""

from __future__ import annotations

import socket
import threading

import httpx
import pytest

from reference.webhooks.connect_guard import RefusedAddress, checked_address

from .reference_helpers import RunningSandbox, wait_until

FIELD = "webhookEndpoint"

LINK_LOCAL = [
    "https://169.254.169.254/latest/meta-data/",  # the cloud metadata service
    "https://[fe80::1]/hooks",
    "https://[fe80::1%25eth0]/hooks",
    "https://[::ffff:169.254.169.254]/hooks",  # IPv4-mapped
    "https://2852039166/hooks",  # 169.254.169.254 as one number
    "https://0xa9fea9fe/hooks",  # ... in hex
    "https://169.254.43518/hooks",  # ... in the two-part form
    "https://169.254.169.254./hooks",  # ... with the root label
]
PRIVATE = [
    "https://10.0.0.5/hooks",
    "https://172.16.0.1/hooks",
    "https://172.31.255.254/hooks",
    "https://192.168.1.10/hooks",
    "https://100.64.0.1/hooks",  # shared address space (carrier-grade NAT)
    "https://0.0.0.0/hooks",
    "https://[fc00::1]/hooks",
    "https://[fd12:3456::1]/hooks",
    "https://[::ffff:10.0.0.1]/hooks",
    "https://0x0a000001/hooks",  # 10.0.0.1
]
PLAIN_HTTP_ELSEWHERE = [
    "http://169.254.169.254/latest/meta-data/",
    "http://10.0.0.5/hooks",
    "http://hooks.example.com/in",
]
ACCEPTED = [
    "http://127.0.0.1:8080/hooks",  # the kit's own sink
    "http://127.1.2.3:8080/hooks",
    "http://localhost:8080/hooks",
    "http://[::1]:8080/hooks",
    "https://127.0.0.1:8443/hooks",  # the kit's sink with --sink-https
    "https://hooks.example.com/in",
    "https://93.184.215.14/hooks",
    "https://[2606:4700::1111]/hooks",
]


def constraints(response: httpx.Response) -> set[str]:
    """The constraints a 400 names for webhookEndpoint; it must name that field."""
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["code"] == "INVALID_INPUT"
    named = {e["constraint"] for e in body["details"]["errors"] if e["field"] == FIELD}
    assert named, f"the 400 does not name {FIELD}: {body}"
    return named


@pytest.mark.parametrize("url", LINK_LOCAL + PRIVATE)
def test_link_local_and_private_addresses_are_refused(client: httpx.Client, url: str) -> None:
    before = client.get("/config").json().get(FIELD)
    response = client.patch("/config", json={FIELD: url})
    assert constraints(response) == {"ADDRESS_NOT_ALLOWED"}
    assert client.get("/config").json().get(FIELD) == before


@pytest.mark.parametrize("url", PLAIN_HTTP_ELSEWHERE)
def test_plain_http_off_loopback_is_refused(client: httpx.Client, url: str) -> None:
    assert constraints(client.patch("/config", json={FIELD: url})) == {"HTTPS_REQUIRED"}


@pytest.mark.parametrize("url", ACCEPTED)
def test_loopback_and_public_https_endpoints_are_accepted(client: httpx.Client, url: str) -> None:
    response = client.patch("/config", json={FIELD: url})
    assert response.status_code == 200, response.text
    assert response.json().get(FIELD) == url


def test_the_option_admits_private_addresses_but_never_link_local(launch) -> None:
    sandbox: RunningSandbox = launch("--allow-private-webhooks")
    with sandbox.client() as client:
        for url in PRIVATE:
            response = client.patch("/config", json={FIELD: url})
            assert response.status_code == 200, (url, response.text)
        for url in LINK_LOCAL:
            assert constraints(client.patch("/config", json={FIELD: url})) == {
                "ADDRESS_NOT_ALLOWED"
            }, url
        for url in PLAIN_HTTP_ELSEWHERE:
            assert constraints(client.patch("/config", json={FIELD: url})) == {"HTTPS_REQUIRED"}, (
                url
            )


@pytest.mark.parametrize(
    ("resolved", "allow_private", "refused"),
    [
        (["93.184.215.14"], False, None),
        (["93.184.215.14", "169.254.169.254"], True, "link-local"),  # any answer counts
        (["10.0.0.5"], False, "private"),
        (["10.0.0.5"], True, None),
        (["127.0.0.1"], False, "private"),  # a name re-pointed at this host
        (["::ffff:169.254.169.254"], True, "link-local"),
        ([], False, "no address"),
    ],
)
def test_the_address_a_name_resolves_to_is_checked_when_connecting(
    resolved: list[str], allow_private: bool, refused: str | None
) -> None:
    if refused is None:
        assert checked_address("hooks.example.com", resolved, allow_private) == resolved[0]
        return
    with pytest.raises(RefusedAddress, match=refused):
        checked_address("hooks.example.com", resolved, allow_private)


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "::1"])
def test_the_kits_loopback_sink_is_connected_to(host: str) -> None:
    """localhost and loopback literals are the kit's own sink: accepted when registered,
    connected to when delivered (only another name resolving to loopback is refused)."""
    address = "::1" if host == "::1" else "127.0.0.1"
    assert checked_address(host, [address], allow_private=False) == address


class _Listener:
    """A TCP port that counts the connections made to it."""

    def __init__(self) -> None:
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = self._server.getsockname()[1]
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._server.close()


def test_a_name_resolving_to_a_private_address_gets_no_delivery(launch) -> None:
    """Registered as a name (not judged then), refused when a delivery connects: the name
    of this machine resolves to a loopback or private address."""
    name = socket.gethostname()
    try:
        socket.getaddrinfo(name, 443, type=socket.SOCK_STREAM)
    except OSError:
        pytest.skip(f"this machine's name {name!r} does not resolve")
    listener = _Listener()
    sandbox: RunningSandbox = launch()
    try:
        with sandbox.client() as client:
            url = f"https://{name}:{listener.port}/hooks"
            assert client.patch("/config", json={FIELD: url}).status_code == 200
            assert client.post("/sandbox/webhooks/test").status_code < 300
        wait_until(lambda: "resolves to" in sandbox.stderr(), 10, "the refused delivery logged")
        assert listener.connections == 0
    finally:
        listener.close()
