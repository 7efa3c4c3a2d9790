"""The one client every test uses to reach the target.

It authenticates (HTTP Basic by default), applies the profile's timeout and a response size
cap, decodes JSON with a clear failure on anything else, validates each response against its
endpoint's schema, and records redacted evidence with a curl line for every exchange.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property, partial
from typing import Any, NoReturn

import httpx

from conformance.contract import endpoint_schemas as contract
from conformance.contract.failures import ConformanceFailure, shorten
from conformance.contract.schemas import SchemaRegistry, default_registry, format_path
from conformance.exchange.deadline import deadline, deadline_transport
from conformance.exchange.decoding import DecodeProblem, DuplicateMember, decode_json
from conformance.exchange.evidence import Exchange, Redactor, build_curl
from conformance.exchange.inflate import decoded_chunks
from conformance.exchange.ledger_answers import record_answer
from conformance.exchange.oversized_head import (
    HEAD_LIMIT_BYTES,
    describe_head_too_large,
    head_too_large,
)
from conformance.exchange.rate_limit import THROTTLE, send_throttled
from conformance.exchange.target_health import TARGET_HEALTH, TargetHealth, count_throttling
from conformance.ground.profile import Credentials, TargetProfile

__all__ = [
    "TARGET_HEALTH",
    "ApiResponse",
    "ExchangeLog",
    "RawAuthorization",
    "TargetClient",
    "TargetHealth",
    "basic_header",
]

MAX_RESPONSE_BYTES = 10 * 1024 * 1024
JSON_CLAUSE = "Conventions"
JSON_REQUIREMENT = "COMMON-JSON-BODIES"


class _TooLarge(Exception):
    """The answer's body went past the size cap; ``received`` bytes were read."""

    def __init__(self, response: httpx.Response, received: int) -> None:
        super().__init__(f"{received} bytes")
        self.response = response
        self.received = received


class _Default:
    """Marker: use the client's own credentials."""


DEFAULT_AUTH = _Default()
_NO_BODY: Any = object()


@dataclass(frozen=True, slots=True)
class RawAuthorization:
    """An Authorization header sent exactly as given (for malformed-credential tests)."""

    value: str


Auth = Credentials | RawAuthorization | _Default | None


def basic_header(client_id: str, secret: str) -> str:
    """The HTTP Basic header value for a token id and secret."""
    token = base64.b64encode(f"{client_id}:{secret}".encode()).decode("ascii")
    return f"Basic {token}"


class ExchangeLog:
    """The exchanges of the test that is running; the plugin empties it between tests."""

    def __init__(self) -> None:
        self._items: list[Exchange] = []

    def append(self, exchange: Exchange) -> None:
        self._items.append(exchange)

    def last(self) -> Exchange | None:
        """The latest exchange of the running test, if any."""
        return self._items[-1] if self._items else None

    def take(self) -> list[Exchange]:
        items, self._items = self._items, []
        return items

    def __len__(self) -> int:
        return len(self._items)


class ApiResponse:
    """A response from the target with its evidence."""

    def __init__(
        self, method: str, path: str, status: int, headers: httpx.Headers, content: bytes,
        exchange: Exchange,
    ) -> None:  # fmt: skip
        self.method = method
        self.path = path
        self.status = status
        self.headers = headers
        self.content = content
        self.exchange = exchange

    def __repr__(self) -> str:
        return f"<ApiResponse {self.method} {self.path} {self.status}>"

    @cached_property
    def json(self) -> Any:
        """The decoded JSON body; fails the test if the body is not JSON."""
        __tracebackhide__ = True
        try:
            return decode_json(self.content)
        except DuplicateMember as problem:
            raise ConformanceFailure(
                JSON_CLAUSE,
                f"bodies are JSON ({JSON_REQUIREMENT}), and an object that names a member twice "
                f"is ambiguous; the {self.status} response of {self.method} {self.path} repeats "
                f"{problem.name!r} at {problem.where}",
                expected=_Text(problem.expected),
                observed=_Text(problem.received),
                hint="send each member once: which of the values a client reads differs from "
                "one JSON library to the next",
                exchange=self.exchange,
            ) from None
        except DecodeProblem as problem:
            raise ConformanceFailure(
                JSON_CLAUSE,
                f"bodies are JSON unless stated; the {self.status} response of "
                f"{self.method} {self.path} cannot be read",
                expected=_Text(problem.expected),
                observed=_Text(problem.received),
                hint=f"content-type was {self.headers.get('content-type')!r}",
                exchange=self.exchange,
            ) from None

    @property
    def is_json(self) -> bool:
        """Whether the body is JSON (one that repeats a member is, but reading it with
        :attr:`json` fails)."""
        try:
            decode_json(self.content)
        except DuplicateMember:
            return True
        except DecodeProblem:
            return False
        return True

    def field(self, *path: str | int) -> Any:
        """A nested value of the JSON body, or None where the path does not exist."""
        value: Any = self.json
        for key in path:
            if isinstance(key, int) and isinstance(value, list) and -len(value) <= key < len(value):
                value = value[key]
            elif isinstance(key, str) and isinstance(value, dict):
                value = value.get(key)
            else:
                return None
        return value


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
        http: httpx.Client | None = None,
        max_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.credentials = credentials
        self.timeout = timeout
        self.registry = registry
        self.log = log
        self.redactor = redactor
        self.max_bytes = max_bytes
        self._http = http or httpx.Client(
            timeout=httpx.Timeout(timeout),
            follow_redirects=False,
            transport=deadline_transport(),
        )

    @classmethod
    def for_profile(
        cls, profile: TargetProfile, log: ExchangeLog | None = None, *, timeout: float | None = None
    ) -> TargetClient:
        """The one way a profile becomes a client: its target, acting as its primary
        platform (without credentials when it has none), with the profile's deadline (or
        ``timeout``), scrubbing and the schema registry. ``log`` collects the exchanges a
        test's evidence shows; the run's own plumbing (preflight, sink) gives none."""
        assert profile.base_url is not None
        return cls(
            base_url=profile.base_url,
            credentials=profile.primary if profile.client_id and profile.client_secret else None,
            timeout=profile.request_timeout if timeout is None else timeout,
            registry=default_registry(),
            log=ExchangeLog() if log is None else log,
            redactor=Redactor.for_profile(profile),
        )

    def with_credentials(self, credentials: Credentials | None) -> TargetClient:
        """The same client (and connection pool) acting with other credentials."""
        return TargetClient(
            base_url=self.base_url,
            credentials=credentials,
            timeout=self.timeout,
            registry=self.registry,
            log=self.log,
            redactor=self.redactor,
            http=self._http,
            max_bytes=self.max_bytes,
        )

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
        self,
        method: str,
        path: str,
        *,
        json: Any = _NO_BODY,
        content: bytes | None = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        files: Any = None,
        data: Mapping[str, Any] | None = None,
        auth: Auth = DEFAULT_AUTH,
        validate: bool = True,
    ) -> ApiResponse:
        """Send one request; validate and record the response.

        ``path`` is relative to the base URL (``/config``) or an absolute URL. ``auth`` is
        the client's credentials by default, other ``Credentials``, a ``RawAuthorization``
        header, or None for no Authorization header. With ``validate`` the body must be
        JSON and match the endpoint's schema (see ``contract.py``).
        """
        __tracebackhide__ = True
        url = path if path.startswith(("http://", "https://")) else self.base_url + path
        send_headers = dict(headers or {})
        creds = self.credentials if isinstance(auth, _Default) else auth
        if isinstance(creds, Credentials):
            send_headers["Authorization"] = basic_header(creds.client_id, creds.client_secret)
        elif isinstance(creds, RawAuthorization):
            send_headers["Authorization"] = creds.value
        request = self._http.build_request(
            method,
            url,
            params=params,
            headers=send_headers,
            json=None if json is _NO_BODY else json,
            content=content,
            files=files,
            data=data,
        )
        body = request.read() if not files else b"<multipart form>"
        curl = build_curl(
            method,
            str(request.url),
            base_url=self.base_url,
            headers=dict(request.headers),
            body=body,
            redactor=self.redactor,
        )
        exchange_base = partial(
            Exchange,
            method=method,
            url=str(request.url),
            request_headers=self.redactor.headers(request.headers.items()),
            request_body=self.redactor.body(body, request=True),
            curl=curl,
        )
        if TARGET_HEALTH.unreachable is not None:  # the run is stopping: do not wait again
            exchange = exchange_base(error="not sent: the target stopped answering")
            self.log.append(exchange)
            raise ConformanceFailure(
                "Conventions",
                f"the target must answer {method} {path}",
                observed=_Text(TARGET_HEALTH.unreachable),
                hint="the run stops early; check that the server is up",
                exchange=exchange,
            )
        THROTTLE.wait_turn()  # --rate-limit: the token bucket, before the deadline starts
        started = time.monotonic()
        try:
            with deadline(self.timeout):
                # with --rate-limit, a 429/503 with Retry-After is waited out and sent again
                # while that fits in this request's deadline
                response = send_throttled(self._http, request)
                try:
                    content_bytes = self._read_capped(response)
                finally:
                    response.close()
        except _TooLarge as too_large:
            TARGET_HEALTH.too_large(f"{method} {path}", too_large.received,
                                    too_large.response.headers.get("content-encoding"))  # fmt: skip
            self._too_large(too_large, method, path, exchange_base, started)
        except (httpx.HTTPError, httpx.InvalidURL, httpx.StreamError) as exc:
            elapsed = (time.monotonic() - started) * 1000
            exchange = exchange_base(elapsed_ms=elapsed, error=_describe(exc))
            self.log.append(exchange)
            if head_too_large(exc):  # an answer, too large to read: no "stopped answering"
                TARGET_HEALTH.head_too_large(f"{method} {path}", HEAD_LIMIT_BYTES)
            elif not isinstance(exc, httpx.DecodingError):
                TARGET_HEALTH.unanswered(f"{method} {path}", exchange.error or "", started)
            raise ConformanceFailure(
                "Conventions",
                f"the target must answer {method} {path}"
                + (" with headers the kit can read" if head_too_large(exc) else ""),
                observed=_Text(exchange.error or ""),
                hint="check the base URL, that the server is up, and the request deadline "
                f"({self.timeout:g} s for connect, send, headers and the whole body)",
                exchange=exchange,
            ) from None
        if not count_throttling(
            f"{method} {path}", response.status_code, response.headers.get("retry-after")
        ):
            TARGET_HEALTH.answered()
        elapsed = (time.monotonic() - started) * 1000
        exchange = exchange_base(
            status=response.status_code,
            response_headers=self.redactor.headers(response.headers.items()),
            response_body=self.redactor.body(content_bytes, request=False),
            elapsed_ms=elapsed,
        )
        self.log.append(exchange)
        result = ApiResponse(
            method, _relative(url, self.base_url), response.status_code, response.headers,
            content_bytes, exchange,
        )  # fmt: skip
        if validate:
            self.validate(result)
            record_answer(self, result, creds, started)  # what it states twice must agree
        return result

    def _read_capped(self, response: httpx.Response) -> bytes:
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_bytes:
            raise _TooLarge(response, 0)  # not read at all
        chunks: list[bytes] = []
        size = 0
        for chunk in decoded_chunks(response):  # a bounded piece at a time, bombs too
            size += len(chunk)
            if size > self.max_bytes:
                raise _TooLarge(response, size)
            chunks.append(chunk)
        return b"".join(chunks)

    def _too_large(
        self,
        too_large: _TooLarge,
        method: str,
        path: str,
        exchange_base: Any,
        started: float,
    ) -> NoReturn:
        """Fail for an answer past the size cap, naming the cap and what arrived."""
        __tracebackhide__ = True
        response = too_large.response
        declared = response.headers.get("content-length")
        received = (
            f"Content-Length {declared}, so the body was not read"
            if too_large.received == 0
            else f"more than {self.max_bytes} bytes (the kit stopped reading at "
            f"{too_large.received}" + (f"; Content-Length {declared})" if declared else ")")
        )
        exchange = exchange_base(
            status=response.status_code,
            response_headers=self.redactor.headers(response.headers.items()),
            response_body=f"<not shown: over the {self.max_bytes}-byte cap ({received})>",
            elapsed_ms=(time.monotonic() - started) * 1000,
        )
        self.log.append(exchange)
        raise ConformanceFailure(
            "Conventions",
            f"the answer to {method} {path} is read only up to the kit's size cap of "
            f"{self.max_bytes} bytes; this {response.status_code} answer is larger",
            expected=_Text(f"a body of at most {self.max_bytes} bytes"),
            observed=_Text(received),
            hint="the interface states no size for answers, and those the suite reads are far "
            "smaller: check what the target returns for this request",
            exchange=exchange,
        )

    def validate(self, response: ApiResponse) -> None:
        """Fail unless the response body is JSON matching its endpoint's schema."""
        __tracebackhide__ = True
        if not response.content:
            if 200 <= response.status < 300:
                ref = contract.response_schema(response.method, response.path, response.status, {})
                if ref is not None:
                    raise ConformanceFailure(
                        ref.clause,
                        f"the {response.status} response of {response.method} {ref.endpoint} "
                        f"must carry {'a list' if ref.is_list else 'the resource'} "
                        f"(schema '{ref.name}')",
                        observed=_Text("an empty body"),
                        exchange=response.exchange,
                    )
            return
        body = response.json
        ref = contract.response_schema(response.method, response.path, response.status, body)
        if ref is None:
            return
        seen = (ref.name, ref.is_list, response.content)
        if seen in _VALID_BODIES:  # the same bytes passed this schema already (GET /config)
            return
        instances = [body]
        if ref.is_list:
            items = contract.list_items(body)
            if items is None:
                raise ConformanceFailure(
                    ref.clause,
                    f"{response.method} {ref.endpoint} must return a list",
                    observed=shorten(body, 200),
                    exchange=response.exchange,
                )
            instances = items
        problems = []
        for index, instance in enumerate(instances):
            for violation in self.registry.violations(ref.name, instance):
                where = format_path((index, *violation.location)) if ref.is_list else violation.path
                problems.append(f"{where}: {violation.message}")
        if not problems:
            if len(_VALID_BODIES) >= _VALID_BODIES_KEPT:
                _VALID_BODIES.clear()
            _VALID_BODIES.add(seen)
        if problems:
            shown = "; ".join(problems[:8]) + (" ..." if len(problems) > 8 else "")
            raise ConformanceFailure(
                self.registry.clause(ref.name) or ref.clause,
                f"the {response.status} response of {response.method} {ref.endpoint} must "
                f"match schema '{ref.name}' ({len(problems)} violation(s): {shown})",
                exchange=response.exchange,
            )


# response bodies (schema, list or not, exact bytes) that passed validation: a body seen
# again is not validated again (polls of GET /config, transaction lists while waiting)
_VALID_BODIES: set[tuple[str, bool, bytes]] = set()
_VALID_BODIES_KEPT = 1024


def _relative(url: str, base_url: str) -> str:
    return url[len(base_url) :] or "/" if url.startswith(base_url) else url


class _Text(str):
    """A string shown as it is in a failure message (no quotes)."""

    def __repr__(self) -> str:
        return str(self)


def _describe(exc: Exception) -> str:
    if head_too_large(exc):
        return describe_head_too_large()
    if isinstance(exc, httpx.TimeoutException):
        return "timed out: no complete answer before the request's deadline"
    if isinstance(exc, httpx.ConnectError):
        return f"connection failed ({exc})"
    if isinstance(exc, httpx.RemoteProtocolError):
        return f"the connection broke or the answer is not valid HTTP ({exc})"
    if isinstance(exc, httpx.ReadError | httpx.WriteError):
        return f"the connection broke ({exc or 'reset by the target'})"
    if isinstance(exc, httpx.DecodingError):
        return f"the body cannot be decoded ({exc})"
    if isinstance(exc, httpx.TooManyRedirects | httpx.UnsupportedProtocol):
        return f"the request cannot be followed ({exc})"
    return f"the exchange failed ({exc})"
