"""Registering the sink as the target's ``webhookEndpoint`` and putting the old value back.

:class:`EndpointRegistration` reads the platform configuration, PATCHes ``webhookEndpoint``
to the sink's URL, and restores the previous value (``null`` when there was none) at the
end. It works through two callables so it does not depend on the suite's client; the
session fixture passes functions that call ``GET /config`` and ``PATCH /config``.

An interrupted run restores too: :meth:`EndpointRegistration.register` installs an
``atexit`` hook and, in the main thread, a ``SIGTERM`` handler that restores and then hands
the signal to whatever handler was there before.
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
import threading
from collections.abc import Callable, Mapping
from types import FrameType
from typing import Any

__all__ = ["WEBHOOK_FIELD", "EndpointRegistration"]

logger = logging.getLogger(__name__)

WEBHOOK_FIELD = "webhookEndpoint"
"""The PlatformConfig field that holds the webhook URL (§2 PlatformConfig)."""

_Handler = Callable[[int, FrameType | None], Any] | int | None


class EndpointRegistration:
    """Point the target's ``webhookEndpoint`` at the sink, and put it back afterwards.

    Args:
        get_config: returns the current PlatformConfig as a dict.
        patch_config: applies a partial PlatformConfig and returns the result.
        sink_url: the URL to register (the sink's ``url``).
    """

    def __init__(
        self,
        get_config: Callable[[], Mapping[str, Any]],
        patch_config: Callable[[dict[str, Any]], Any],
        sink_url: str,
    ) -> None:
        self._get_config = get_config
        self._patch_config = patch_config
        self.sink_url = sink_url
        self._previous: str | None = None
        self._registered = False
        self._restoring = False
        self._lock = threading.RLock()
        self._atexit_installed = False
        self._sigterm_installed = False
        self._previous_sigterm: _Handler = None

    @property
    def registered(self) -> bool:
        """Whether the sink is registered and not yet restored."""
        return self._registered

    @property
    def previous(self) -> str | None:
        """The ``webhookEndpoint`` found before :meth:`register` (``None`` if unset)."""
        return self._previous

    def register(self) -> str | None:
        """Remember the current endpoint, set the sink's URL, install the exit hooks.

        Returns the previous endpoint. Errors from the callables propagate: a failed
        registration is a start-up problem the caller must report.
        """
        with self._lock:
            if self._registered:
                return self._previous
            config = self._get_config()
            value = config.get(WEBHOOK_FIELD) if isinstance(config, Mapping) else None
            previous = value if isinstance(value, str) and value else None
            self._patch_config({WEBHOOK_FIELD: self.sink_url})
            self._previous = previous
            self._registered = True
            self._install()
            return previous

    def restore(self) -> str | None:
        """Put the previous endpoint back; ``None`` on success or when there is nothing to do.

        Never raises: a failure is logged and returned as a message, and the registration
        stays active so the ``atexit`` hook tries once more. Safe to call repeatedly.
        """
        with self._lock:
            if not self._registered or self._restoring:
                return None
            self._restoring = True
            try:
                self._patch_config({WEBHOOK_FIELD: self._previous})
            except Exception as exc:
                message = (
                    f"webhook sink: could not restore {WEBHOOK_FIELD} to {self._previous!r}: "
                    f"{type(exc).__name__}: {exc}"
                )
                logger.warning(message)
                return message
            finally:
                self._restoring = False
            self._registered = False
            self.uninstall()
            return None

    # -- exit hooks -------------------------------------------------------------------

    def _install(self) -> None:
        if not self._atexit_installed:
            atexit.register(self._at_exit)
            self._atexit_installed = True
        if self._sigterm_installed or threading.current_thread() is not threading.main_thread():
            return
        try:
            self._previous_sigterm = signal.getsignal(signal.SIGTERM)
            signal.signal(signal.SIGTERM, self._on_sigterm)
        except (ValueError, OSError) as exc:  # no signals here (embedded interpreter)
            logger.debug("webhook sink: no SIGTERM handler installed: %s", exc)
            return
        self._sigterm_installed = True

    def uninstall(self) -> None:
        """Remove the ``atexit`` hook and our ``SIGTERM`` handler (if still the current one)."""
        if self._atexit_installed:
            atexit.unregister(self._at_exit)
            self._atexit_installed = False
        if not self._sigterm_installed or threading.current_thread() is not threading.main_thread():
            return
        if signal.getsignal(signal.SIGTERM) == self._on_sigterm:
            previous = self._previous_sigterm
            signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)
        self._sigterm_installed = False

    def _at_exit(self) -> None:
        try:
            self.restore()
        except Exception:  # restore() does not raise; an exit hook must never
            logger.exception("webhook sink: restoring %s at exit failed", WEBHOOK_FIELD)

    def _on_sigterm(self, signum: int, frame: FrameType | None) -> None:
        previous = self._previous_sigterm
        self._at_exit()
        if callable(previous):
            previous(signum, frame)
        elif previous == signal.SIG_IGN:
            return
        else:  # the default action: terminate, as if we had never been here
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
