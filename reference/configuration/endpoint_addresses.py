"""Where a ``webhookEndpoint`` may point: the address classes the sandbox refuses.

The sandbox posts to whatever URL a platform registers, so an endpoint on a link-local
address (the cloud metadata service at 169.254.169.254) or on a private network would let
any API caller make the sandbox's host call into its own network. Here only literal
addresses are classified: a host name is not resolved when it is registered, because an
answer checked now says nothing about the address a later delivery connects to (DNS can
change in between), and a sandbox without network access could not resolve names at all.
The delivery client checks the address a name resolves to as it connects
(``reference/webhooks/connect_guard.py``).
"""

from __future__ import annotations

import enum
import ipaddress
import re
import socket

# The legacy IPv4 spellings getaddrinfo still accepts: 2852039166, 0xa9fea9fe, 0251.0376.0.1,
# 169.254.43518. A host made only of these characters is tried as one.
_NUMERIC_HOST = re.compile(r"[0-9a-fA-FxX.]+")


class AddressClass(enum.Enum):
    """What a webhook host is, as far as the sandbox's rules go."""

    NAME = "name"  # a host name, not resolved
    LOOPBACK = "loopback"  # localhost, 127.0.0.0/8, ::1: the kit's own sink lives here
    LINK_LOCAL = "link-local"  # 169.254.0.0/16, fe80::/10: always refused
    PRIVATE = "private"  # any other address that is not globally routable
    PUBLIC = "public"


def literal_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``host`` as the address a connection to it reaches, or None for a host name.

    IPv4-mapped IPv6 addresses count as their IPv4 address, and the legacy numeric IPv4
    forms count as the address the resolver turns them into.
    """
    text = host.split("%", 1)[0]  # an IPv6 zone id does not change the address class
    if text.endswith(".") and not text.endswith(".."):
        text = text[:-1]  # the root label: "169.254.169.254." is the same host
    try:
        address: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(text)
    except ValueError:
        if not _NUMERIC_HOST.fullmatch(text):
            return None
        try:
            address = ipaddress.IPv4Address(socket.inet_aton(text))
        except OSError:
            return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def classify_host(host: str) -> AddressClass:
    """The class of a URL's host (``urlsplit(...).hostname``: no brackets, lower case)."""
    if host == "localhost":
        return AddressClass.LOOPBACK
    address = literal_address(host)
    if address is None:
        return AddressClass.NAME
    if address.is_loopback:
        return AddressClass.LOOPBACK
    if address.is_link_local:
        return AddressClass.LINK_LOCAL
    if not address.is_global or address.is_multicast:
        return AddressClass.PRIVATE
    return AddressClass.PUBLIC
