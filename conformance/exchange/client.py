"""The one client every test uses to reach the target.

A request goes down a stack of transports, each with one concern, as httpx layers its own
(top first): target health (``target_health.py``: a target that stopped answering is sent
nothing more), the throttle's turn (``rate_limit.py``), the request's total deadline
(``deadline.py``), ``Retry-After`` resends (``rate_limit.py``), the capped read
(``capped_read.py``) and the network (``deadline.py``). The client authenticates (HTTP
Basic by default), records redacted evidence with a curl line for every exchange, and runs
the registered answer checks (``answer_checks.py``: no 5xx, decoding, the schema, the
ledger) on every answer it is asked to validate.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

import httpx
from hypothesis import currently_in_test_context

from conformance.contract.failures import ConformanceFailure
from conformance.contract.schemas import SchemaRegistry, default_registry
from conformance.exchange import (  # noqa: F401 - they register checks
    ledger_answers,
    schema_check,
    server_errors,
)
from conformance.exchange import unanswered as no_answer
from conformance.exchange.answer import ApiResponse
from conformance.exchange.answer_checks import (
    CheckContext,
    judges_the_body,
    registered,
    run_answer_checks,
)
from conformance.exchange.authorization import (
    DEFAULT_AUTH,
    NO_BODY,
    Auth,
    RawAuthorization,
    _Default,
    basic_header,
)
from conformance.exchange.capped_read import MAX_RESPONSE_BYTES, CappedReadTransport, TooLarge
from conformance.exchange.deadline import SENT_AT, DeadlineTransport, NetworkTransport
from conformance.exchange.evidence import Exchange, ExchangeLog, Redactor, build_curl
from conformance.exchange.oversized_head import head_too_large
from conformance.exchange.rate_limit import RetryAfterTransport, Throttle, ThrottleTransport
from conformance.exchange.run_state import ExchangeState
from conformance.exchange.schema_check import ValidBodies
from conformance.exchange.target_health import WHAT, HealthTransport, TargetHealth, TargetStopped
from conformance.exchange.unanswered import describe
from conformance.ground.profile import Credentials, TargetProfile

__all__ = [
    "MAX_RESPONSE_BYTES",
    "ApiResponse",
    "ExchangeLog",
    "ExchangeState",
    "RawAuthorization",
    "TargetClient",
    "TargetHealth",
    "basic_header",
    "layered_transport",
]


def layered_transport(
    network: httpx.BaseTransport,
    *,
    timeout: float,
    max_bytes: int,
    health: TargetHealth,
    throttle: Throttle,
) -> httpx.BaseTransport:
    """The client's stack over ``network``: health, throttle, deadline, Retry-After, the
    capped read (each layer calls the one below it)."""
    capped = CappedReadTransport(network, max_bytes)
    timed = DeadlineTransport(RetryAfterTransport(capped, throttle), timeout)
    return HealthTransport(ThrottleTransport(timed, throttle), health, throttle)


# what the client records of a request before it is sent; the answer completes it
_Recorder = Callable[..., Exchange]


class TargetClient:
    """Calls the target over HTTP; the only way tests reach it."""

    def __init__(
        self,
        *,
        base_url: str,
        credentials: Credentials | None,
        timeout: float,
        registry: SchemaRegistry,
        log: ExchangeLog,
        redactor: Redactor,
        network: httpx.BaseTransport | None = None,
        max_bytes: int = MAX_RESPONSE_BYTES,
        state: ExchangeState | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.credentials = credentials
        self.timeout = timeout
        self.registry = registry
        self.log = log
        self.redactor = redactor
        self.max_bytes = max_bytes
        self.valid_bodies = ValidBodies()
        # the session's health, throttle and ledger; a client of its own outside a session
        self.state = ExchangeState() if state is None else state
        stack = layered_transport(
            network or NetworkTransport(),
            timeout=timeout,
            max_bytes=max_bytes,
            health=self.state.health,
            throttle=self.state.throttle,
        )
        self._http = httpx.Client(
            timeout=httpx.Timeout(timeout), follow_redirects=False, transport=stack
        )

    @classmethod
    def for_profile(
        cls,
        profile: TargetProfile,
        log: ExchangeLog | None = None,
        *,
        timeout: float | None = None,
        state: ExchangeState | None = None,
    ) -> TargetClient:
        """The one way a profile becomes a client: its target, acting as its primary
        platform (without credentials when it has none), with the profile's deadline (or
        ``timeout``), scrubbing and the schema registry. ``log`` collects the exchanges a
        test's evidence shows; the run's own plumbing (preflight, sink) gives none.
        ``state`` is the session's (``run_state.py``)."""
        assert profile.base_url is not None
        return cls(
            base_url=profile.base_url,
            credentials=profile.primary if profile.client_id and profile.client_secret else None,
            timeout=profile.request_timeout if timeout is None else timeout,
            registry=default_registry(),
            log=ExchangeLog() if log is None else log,
            redactor=Redactor.for_profile(profile),
            state=state,
        )

    def with_credentials(self, credentials: Credentials | None) -> TargetClient:
        """The same client (connection pool, log, layers) acting with other credentials."""
        clone = copy.copy(self)
        clone.credentials = credentials
        return clone

    def close(self) -> None:
        self._http.close()

    # -- verbs -------------------------------------------------------------------------------

    def get(self, path: str, **kwargs: Any) -> ApiResponse:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> ApiResponse:
        return self.request("POST", path, **kwargs)

    def patch(self, path: str, **kwargs: Any) -> ApiResponse:
        return self.request("PATCH", path, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> ApiResponse:
        return self.request("DELETE", path, **kwargs)

    def request(
        self, method: str, path: str, *, auth: Auth = DEFAULT_AUTH, validate: bool = True,
        **body: Any,
    ) -> ApiResponse:  # fmt: skip
        """Send one request; validate and record the response.

        ``path`` is relative to the base URL (``/config``) or an absolute URL. ``auth`` is
        the client's credentials by default, other ``Credentials``, a ``RawAuthorization``
        header, or None for no Authorization header. ``body`` takes httpx's ``json``,
        ``content``, ``params``, ``headers``, ``files`` and ``data``. With ``validate`` the
        answer gets every registered answer check (``answer_checks.py``).
        """
        __tracebackhide__ = True
        creds = self.credentials if isinstance(auth, _Default) else auth
        request = self._build(method, path, creds, **body)
        record = self._recorder(request, has_files=bool(body.get("files")))
        started = time.monotonic()
        status, headers, content = self._send(request, path, record, started)
        sent = float(request.extensions.get(SENT_AT, started))
        exchange = record(
            status=status,
            response_headers=self.redactor.headers(headers.items()),
            response_body=self.redactor.body(content, request=False),
            elapsed_ms=(time.monotonic() - sent) * 1000,
        )
        self.log.append(exchange)
        url = str(request.url)
        result = ApiResponse(
            method, _relative(url, self.base_url), status, headers, content, exchange
        )
        if validate:
            try:
                run_answer_checks(result, CheckContext(self, creds, sent))
            except ConformanceFailure as failure:  # a body's defect waits for the body's read
                if not (judges_the_body(failure) and self.state.held.hold(result, failure)):
                    self.state.held.raised(failure)
                    raise
        return result

    def _build(
        self, method: str, path: str, creds: object, *, json: Any = NO_BODY,
        headers: Mapping[str, str] | None = None, **rest: Any,
    ) -> httpx.Request:  # fmt: skip
        """The request as it will be sent, with its Authorization header."""
        url = path if path.startswith(("http://", "https://")) else self.base_url + path
        send_headers = dict(headers or {})
        if isinstance(creds, Credentials):
            send_headers["Authorization"] = basic_header(creds.client_id, creds.client_secret)
        elif isinstance(creds, RawAuthorization):
            send_headers["Authorization"] = creds.value
        return self._http.build_request(
            method, url, headers=send_headers, json=None if json is NO_BODY else json,
            extensions={WHAT: f"{method} {path}"}, **rest,
        )  # fmt: skip

    def _recorder(self, request: httpx.Request, *, has_files: bool) -> _Recorder:
        """The exchange of ``request`` so far (redacted, with its curl line), to complete."""
        body = request.read() if not has_files else b"<multipart form>"
        url = str(request.url)
        curl = build_curl(
            request.method, url, base_url=self.base_url, headers=dict(request.headers),
            body=body, redactor=self.redactor,
        )  # fmt: skip
        request_headers = self.redactor.headers(request.headers.items())
        request_body = self.redactor.body(body, request=True)

        def record(**answer: Any) -> Exchange:
            return Exchange(
                method=request.method, url=url, request_headers=request_headers,
                request_body=request_body, curl=curl, **answer,
            )  # fmt: skip

        return record

    def _send(
        self, request: httpx.Request, path: str, record: _Recorder, started: float
    ) -> tuple[int, httpx.Headers, bytes]:
        """Send down the stack: the answer's status, headers and body (read, capped)."""
        __tracebackhide__ = True
        down = self.state.health.down
        if down is not None and currently_in_test_context():  # the run stops: see RunStopping
            self._not_sent(request, path, down, record)
        try:
            response = self._http.send(request, stream=True)
            try:  # the capped-read layer read the body: taken as it is, not decoded again
                return response.status_code, response.headers, b"".join(response.iter_raw())
            finally:
                response.close()
        except TargetStopped as stopped:
            self._not_sent(request, path, str(stopped), record)
        except TooLarge as too_large:
            self._too_large(too_large, request, path, record, started)
        except (httpx.HTTPError, httpx.InvalidURL, httpx.StreamError) as exc:
            self._unanswered(exc, request, path, record, started)

    def _not_sent(self, request: httpx.Request, path: str, why: str, record: _Recorder) -> NoReturn:
        __tracebackhide__ = True
        exchange = record(error="not sent: the target stopped answering")
        self.log.append(exchange)
        failure = no_answer.not_sent(f"{request.method} {path}", why, exchange)
        if currently_in_test_context():  # not to be shrunk: see RunStopping
            raise no_answer.RunStopping(failure)
        raise failure

    def _unanswered(
        self, exc: Exception, request: httpx.Request, path: str, record: _Recorder, started: float
    ) -> NoReturn:
        __tracebackhide__ = True
        exchange = record(elapsed_ms=_elapsed_ms(request, started), error=describe(exc))
        self.log.append(exchange)
        raise no_answer.unanswered(
            f"{request.method} {path}", exchange, self.timeout, head_too_large=head_too_large(exc)
        ) from None

    def _too_large(
        self, too_large: TooLarge, request: httpx.Request, path: str, record: _Recorder,
        started: float,
    ) -> NoReturn:  # fmt: skip
        __tracebackhide__ = True
        response = too_large.response
        received = no_answer.too_large_received(too_large, self.max_bytes)
        exchange = record(
            status=response.status_code,
            response_headers=self.redactor.headers(response.headers.items()),
            response_body=f"<not shown: over the {self.max_bytes}-byte cap ({received})>",
            elapsed_ms=_elapsed_ms(request, started),
        )
        self.log.append(exchange)
        raise no_answer.too_large(f"{request.method} {path}", too_large, received, exchange)

    def validate(self, response: ApiResponse) -> None:
        """Fail unless the response body is JSON matching its endpoint's schema."""
        __tracebackhide__ = True
        context = CheckContext(self, None, time.monotonic())
        for check in registered():
            if check.name in ("decoding", "schema"):
                check(response, context)


def _elapsed_ms(request: httpx.Request, started: float) -> float:
    return (time.monotonic() - float(request.extensions.get(SENT_AT, started))) * 1000


def _relative(url: str, base_url: str) -> str:
    return url[len(base_url) :] or "/" if url.startswith(base_url) else url
