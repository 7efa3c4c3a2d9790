"""What an exchange that got no whole answer comes to, in words a report shows: not sent,
unanswered, or an answer past the size cap."""

from __future__ import annotations

import httpx

from conformance.contract.failures import ConformanceFailure
from conformance.exchange.answer import Text
from conformance.exchange.capped_read import TooLarge
from conformance.exchange.evidence import Exchange
from conformance.exchange.oversized_head import describe_head_too_large, head_too_large

__all__ = ["describe", "not_sent", "too_large", "too_large_received", "unanswered"]


def describe(exc: Exception) -> str:
    """One phrase for the transport error ``exc`` (a timeout, a refused connection, ...)."""
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


class RunStopping(BaseException):
    """A request not sent inside a Hypothesis test: the target stopped answering, or
    throttles every request, so the run stops. Hypothesis catches every ``Exception`` to
    shrink it, and would search on for a minimal input to a failure no input causes (each
    call fails at once while the run waits for the test: 40 s seen under load). A
    ``BaseException`` passes through it; the
    plugin's phase guard (``run/answer_guard.py``) raises the ``failure`` it carries."""

    def __init__(self, failure: ConformanceFailure) -> None:
        super().__init__(str(failure))
        self.failure = failure


def not_sent(what: str, why: str, exchange: Exchange) -> ConformanceFailure:
    """The failure of a request not sent: the target stopped answering earlier in the run."""
    return ConformanceFailure(
        "Conventions",
        f"the target must answer {what}",
        observed=Text(why),
        hint="the run stops early; check that the server is up",
        exchange=exchange,
    )


def unanswered(
    what: str, exchange: Exchange, timeout: float, *, head_too_large: bool = False
) -> ConformanceFailure:
    """The failure of an exchange that got no answer (or one that cannot be read)."""
    return ConformanceFailure(
        "Conventions",
        f"the target must answer {what}"
        + (" with headers the kit can read" if head_too_large else ""),
        observed=Text(exchange.error or ""),
        hint="check the base URL, that the server is up, and the request deadline "
        f"({timeout:g} s for connect, send, headers and the whole body)",
        exchange=exchange,
    )


def too_large_received(too_large: TooLarge, max_bytes: int) -> str:
    """What arrived of an answer past the size cap."""
    declared = too_large.response.headers.get("content-length")
    if too_large.received == 0:
        return f"Content-Length {declared}, so the body was not read"
    return f"more than {max_bytes} bytes (the kit stopped reading at {too_large.received}" + (
        f"; Content-Length {declared})" if declared else ")"
    )


def too_large(what: str, answer: TooLarge, received: str, exchange: Exchange) -> ConformanceFailure:
    """The failure of an answer past the size cap, naming the cap and what arrived."""
    cap = answer.max_bytes
    return ConformanceFailure(
        "Conventions",
        f"the answer to {what} is read only up to the kit's size cap of {cap} bytes; "
        f"this {answer.response.status_code} answer is larger",
        expected=Text(f"a body of at most {cap} bytes"),
        observed=Text(received),
        hint="the interface states no size for answers, and those the suite reads are far "
        "smaller: check what the target returns for this request",
        exchange=exchange,
    )
