"""The authorization a quote may need before its money moves: strong customer
authentication (``reference.sca.authentication``, the area above this one).

Payments asks through ``Authorization``; the assembly installs SCA (``reference.server.app``),
so payments never imports it. Until then nothing is ever challenged.
"""

from __future__ import annotations

from typing import Protocol

from reference.kernel.services import Services
from reference.payments.quote_store import Quote


class Authorization(Protocol):
    """What creating, executing and reading quotes and transactions ask of SCA."""

    def expire_due(self, services: Services, platform_id: str) -> None:
        """Fail the platform's transfers whose challenge expired; call inside a transaction,
        before reading quotes or transactions."""
        ...

    def challenge_on_create(self, services: Services, quote: Quote) -> Quote:
        """A new quote, challenged when it needs authorization before it can be paid."""
        ...

    def challenge_on_execute(self, services: Services, quote: Quote) -> Quote | None:
        """The challenged quote when executing it needs authorization, else None."""
        ...

    def on_repeat_execute(self, services: Services, quote: Quote) -> Quote | None:
        """An execute of a quote awaiting authorization: refused, or the quote it releases;
        None for any other quote."""
        ...


class _Unchallenged:
    """No authorization: nothing expires, nothing is challenged."""

    def expire_due(self, services: Services, platform_id: str) -> None:
        return None

    def challenge_on_create(self, services: Services, quote: Quote) -> Quote:
        return quote

    def challenge_on_execute(self, services: Services, quote: Quote) -> Quote | None:
        return None

    def on_repeat_execute(self, services: Services, quote: Quote) -> Quote | None:
        return None


_installed: Authorization = _Unchallenged()


def install(authorization: Authorization) -> None:
    """Ask ``authorization`` from now on (installing again replaces)."""
    global _installed
    _installed = authorization


def expire_due(services: Services, platform_id: str) -> None:
    """See ``Authorization.expire_due``."""
    _installed.expire_due(services, platform_id)


def challenge_on_create(services: Services, quote: Quote) -> Quote:
    """See ``Authorization.challenge_on_create``."""
    return _installed.challenge_on_create(services, quote)


def challenge_on_execute(services: Services, quote: Quote) -> Quote | None:
    """See ``Authorization.challenge_on_execute``."""
    return _installed.challenge_on_execute(services, quote)


def on_repeat_execute(services: Services, quote: Quote) -> Quote | None:
    """See ``Authorization.on_repeat_execute``."""
    return _installed.on_repeat_execute(services, quote)
