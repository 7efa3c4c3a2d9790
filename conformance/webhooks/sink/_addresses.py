"""Host and client address rules for the sink: loopback, wildcard, URL and certificate names.

The sink decides from these which listeners it needs (a control API reachable only on
loopback), which URLs it hands out, which names its throwaway certificate covers, and
which clients may use the control API.
"""

from __future__ import annotations

import ipaddress
from typing import Any

__all__ = [
    "client_is_loopback",
    "is_loopback",
    "is_wildcard",
    "tls_hosts",
    "url_host",
    "url_on_loopback",
]


def is_loopback(host: str) -> bool:
    """Whether a listen host (a name or a literal address) is loopback-only."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    """Whether a listen host means "every interface"."""
    return host in ("", "0.0.0.0", "::")


def client_is_loopback(address: Any) -> bool:
    """Whether a connected client's ``client_address`` is loopback (IPv4-mapped included)."""
    try:
        ip = ipaddress.ip_address(str(address[0]).split("%", 1)[0])
    except (ValueError, IndexError, TypeError):
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip.is_loopback


def url_host(host: str) -> str:
    """``host`` as it goes into a URL: wildcards become loopback, IPv6 gets brackets."""
    if is_wildcard(host):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


def url_on_loopback(host: str) -> bool:
    """Whether the sink listening on ``host`` hands out a loopback URL (a wildcard does)."""
    return is_loopback(url_host(host).strip("[]"))


def tls_hosts(host: str) -> list[str]:
    """The names the HTTPS certificate must cover: loopback ones, plus ``host`` if specific."""
    hosts = ["127.0.0.1", "localhost", "::1"]
    if not is_wildcard(host) and host not in hosts:
        hosts.insert(0, host)
    return hosts
