"""Fault modes: start-up switches that each break exactly one stated behaviour.

The project's self-tests start the sandbox with a fault and check that the conformance
suite notices. Each fault is checked at the single place its behaviour lives, through
``ServerSettings.has_fault``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from types import MappingProxyType

FAULTS: Mapping[str, str] = MappingProxyType(
    {
        "config-wrong-type": "config responses render supportedCurrencies[].minAmount as a string",
        "config-missing-id": "config responses omit id",
        "config-patch-ignored": "PATCH /config answers 200 but does not apply valid changes",
        "validation-first-error-only": "a 400 INVALID_INPUT lists only the first invalid field",
        "config-accept-http-webhook": "accepts an http:// webhookEndpoint on a non-loopback host",
        "config-fee-any-currency": "accepts a fee config whose sourceCurrency is not USD",
        "config-shared-across-platforms": (
            "PATCH /config by one platform also changes the other platform's config"
        ),
        "auth-accept-missing": "a request without Authorization is served as the primary platform",
        "auth-accept-wrong-secret": "a known token id with a wrong secret is accepted",
        "auth-accept-production-keys": "production credentials are accepted by the sandbox",
        "auth-no-reason": "401 responses omit reason",
        "webhook-forged-signature": "deliveries are signed with a key other than the published one",
        "webhook-tampered-body": "the delivered body differs from the signed bytes",
        "webhook-unsigned": "deliveries carry no X-Service-Signature",
        "webhook-test-not-sent": "POST /sandbox/webhooks/test answers 200 but delivers nothing",
        "webhook-test-wrong-shape": "the TEST event lacks webhookId and has test: false",
        "wrong-version-segment": "routes and base_url use /2024-01-01 instead of /2025-10-13",
    }
)


class UnknownFaultError(ValueError):
    """A requested fault mode is not in the catalogue."""


def validate_faults(names: Iterable[str]) -> frozenset[str]:
    """Return the requested fault names as a set, or raise for the first unknown one.

    The message names the bad value and suggests the closest known name, so a typo on the
    command line is a one-line fix.
    """
    requested = frozenset(names)
    for name in sorted(requested):
        if name not in FAULTS:
            close = difflib.get_close_matches(name, FAULTS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise UnknownFaultError(
                f"unknown fault mode {name!r}{hint} (use --list-faults to see all)"
            )
    return requested


def describe_faults() -> str:
    """The catalogue as aligned text lines, one fault per line."""
    width = max(len(name) for name in FAULTS)
    return "\n".join(f"{name:<{width}}  {text}" for name, text in FAULTS.items())
