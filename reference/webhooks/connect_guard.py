"""The address a delivery connects to, checked as it connects.

``PATCH /config`` refuses a ``webhookEndpoint`` on a link-local or private literal address,
but a host name is only resolved when a delivery connects, and its answer can change at any
time (a name that pointed at a public address can be re-pointed at 169.254.169.254). So the
check that matters is here: the delivery client resolves the name itself, refuses if any
address it gets is link-local, or not globally routable while ``--allow-private-webhooks``
is off (a name other than ``localhost`` that resolves to loopback counts as private), and
then connects to the very address it checked, never resolving twice. TLS still verifies
the certificate against the name: httpcore takes the server name from the URL, not from
the address connected to.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx

from reference.configuration.endpoint_addresses import AddressClass, classify_host

__all__ = ["RefusedAddress", "checked_address", "guarded_transport"]


class RefusedAddress(httpcore.ConnectError):
    """The endpoint's name resolves to an address deliveries never go to."""


def _verdict(host: str, address: str, allow_private: bool) -> str | None:
    """Why ``address`` (one that ``host`` resolved to) is refused, or None."""
    where = classify_host(address)
    if where is AddressClass.LOOPBACK and classify_host(host) is not AddressClass.LOOPBACK:
        where = AddressClass.PRIVATE  # a name other than localhost re-pointed at this host
    if where is AddressClass.LINK_LOCAL:
        return f"{host} resolves to {address}, a link-local address: never delivered to"
    if where is AddressClass.PRIVATE and not allow_private:
        return (
            f"{host} resolves to {address}, a private address: not delivered to without "
            "--allow-private-webhooks"
        )
    return None


def checked_address(host: str, resolved: Iterable[str], allow_private: bool) -> str:
    """The first of ``resolved`` to connect to, or ``RefusedAddress`` when any of them is
    one deliveries never go to (a resolver may hand out several; any could be used)."""
    addresses = list(dict.fromkeys(resolved))
    if not addresses:
        raise RefusedAddress(f"{host} resolves to no address")
    for address in addresses:
        reason = _verdict(host, address, allow_private)
        if reason is not None:
            raise RefusedAddress(reason)
    return addresses[0]


class _GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend, connecting only to addresses that passed the check."""

    def __init__(self, inner: httpcore.AsyncNetworkBackend, allow_private: bool) -> None:
        self._inner = inner
        self._allow_private = allow_private

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
        address = checked_address(host, (str(entry[4][0]) for entry in found), self._allow_private)
        return await self._inner.connect_tcp(
            address,
            port,
            timeout=timeout,
            local_address=local_address,
            socket_options=socket_options,
        )

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        return await self._inner.connect_unix_socket(
            path, timeout=timeout, socket_options=socket_options
        )

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


def guarded_transport(allow_private: bool) -> httpx.AsyncHTTPTransport:
    """httpx's transport whose connections go through the address check.

    httpx has no parameter for httpcore's network backend, so the pool's is wrapped after
    it is built; ``tests/reference/test_webhook_endpoint_rules.py`` holds that it still is.
    """
    transport = httpx.AsyncHTTPTransport()
    pool: Any = transport._pool
    pool._network_backend = _GuardedBackend(pool._network_backend, allow_private)
    return transport
