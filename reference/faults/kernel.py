"""Fault modes of the kernel (reference/kernel/): authentication, errors, versioning."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator
from typing import Any

from reference.faults.registry import fault
from reference.kernel import auth, errors, routing, settings
from reference.kernel.platforms import PRIMARY, Platform, platform_by_role
from reference.kernel.services import Services

# The version segment served instead of the real one.
WRONG_VERSION = "2024-01-01"
# sometimes-500: the operations (method, route template) that fail now and then, and how often
NOW_AND_THEN = (("POST", "/customers"), ("POST", "/quotes"))
EVERY = 3


@fault(
    "validation-first-error-only",
    at=errors.ERROR_BODY,
    clause="§7 Errors: every invalid field at once",
    part="errors",
    caught_by=(
        "test_two_invalid_fields_are_both_named",
        "test_generated_invalid_patches_name_every_invalid_field",
    ),
)
def first_invalid_field_only(body: dict[str, Any], *, error: errors.ApiError) -> dict[str, Any]:
    """a 400 INVALID_INPUT lists only the first invalid field"""
    if isinstance(error, errors.InvalidInput):
        return errors.InvalidInput(error.errors[:1]).body()
    return body


@fault(
    "auth-no-reason",
    at=errors.ERROR_BODY,
    clause="§5 Authentication: reason names the check",
    part="auth",
    caught_by=(
        "test_missing_credentials_are_refused",
        "test_malformed_authorization_is_refused",
        "test_wrong_secret_is_refused",
    ),
)
def no_reason_on_401(body: dict[str, Any], *, error: errors.ApiError) -> dict[str, Any]:
    """401 responses omit reason"""
    if error.status == 401:
        body = {key: value for key, value in body.items() if key != "reason"}
    return body


@fault(
    "auth-accept-missing",
    at=auth.ANONYMOUS_PLATFORM,
    clause="§5 Authentication",
    part="auth",
    caught_by=("test_missing_credentials_are_refused",),
)
def serve_anonymous_as_primary(
    platform: Platform | None, *, services: Services, path: str
) -> Platform | None:
    """a request without Authorization is served as the primary platform"""
    return platform_by_role(services.db, PRIMARY)


@fault(
    "stablecoins-unauthenticated",
    at=auth.ANONYMOUS_PLATFORM,
    clause="§5 Authentication: Basic is the default for platform endpoints",
    part="auth",
    caught_by=("test_named_endpoints_without_shown_bodies_require_credentials",),
)
def serve_anonymous_stablecoins(
    platform: Platform | None, *, services: Services, path: str
) -> Platform | None:
    """GET /stablecoins answers without credentials, as the primary platform"""
    if path.endswith("/stablecoins"):
        return platform_by_role(services.db, PRIMARY)
    return platform


@fault(
    "auth-accept-wrong-secret",
    at=auth.SECRET_MATCHES,
    clause="§5 Authentication",
    part="auth",
    caught_by=("test_wrong_secret_is_refused",),
)
def any_secret_matches(matches: bool) -> bool:
    """a known token id with a wrong secret is accepted"""
    return True


@fault(
    "auth-accept-production-keys",
    at=auth.ENVIRONMENT_MATCHES,
    clause="§5 Authentication: keys bound to one environment",
    part="auth",
    caught_by=("test_production_keys_do_not_work_in_the_sandbox",),
)
def any_environment_matches(matches: bool) -> bool:
    """production credentials are accepted by the sandbox"""
    return True


@fault(
    "wrong-version-segment",
    at=settings.VERSION_SEGMENT,
    clause="§9 Versioning",
    part="versioning",
    caught_by=(
        "test_the_current_version_is_served_under_its_date_segment",
        "test_the_profile_base_url_carries_the_current_version",
    ),
)
def serve_an_old_version(segment: str) -> str:
    """routes and base_url use /2024-01-01 instead of /2025-10-13"""
    return WRONG_VERSION


@fault(
    "sometimes-500",
    at=routing.REQUEST_BODY,
    clause="§4 Endpoints: each operation answers what its row states, never a 5xx",
    part="endpoints",
    caught_by=("test_a_business_needs_the_four_required_business_info_fields",),
    per_server=True,
)
def now_and_then_500() -> Callable[..., dict[str, Any]]:
    """every third POST /customers and every third POST /quotes answers 500"""
    lock = threading.Lock()
    counters: dict[tuple[str, str], Iterator[int]] = {
        operation: itertools.count(1) for operation in NOW_AND_THEN
    }

    def sometimes_fails(body: dict[str, Any], *, method: str, path: str) -> dict[str, Any]:
        counter = counters.get((method, path))
        if counter is None:
            return body
        with lock:  # handlers run in the thread pool in a fault mode: count each once
            turn = next(counter)
        if turn % EVERY == 0:
            raise errors.ApiError(500, "INTERNAL_ERROR", "internal error in the reference sandbox")
        return body

    return sometimes_fails
