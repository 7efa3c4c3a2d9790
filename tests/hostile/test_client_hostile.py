"""The client against a hostile target: every malformed answer is a clause failure (never a
raw Python exception), every request ends by its total deadline, no secret in the evidence."""

from __future__ import annotations

import time

import pytest

from conformance.contract.failures import ConformanceFailure
from conformance.contract.schemas import default_registry
from conformance.exchange.client import ExchangeLog, ExchangeState, TargetClient, TargetHealth
from conformance.exchange.evidence import Redactor
from conformance.ground.profile import Credentials
from conformance.ground.secrets import register_basic_credentials

from .server import MALFORMED_MODES, HostileTarget

SECRET = "hostile-client-secret-0123456789"
CLIENT_ID = "tok_hostile"
RAW_EXCEPTIONS = (
    "RecursionError", "AttributeError", "TypeError", "IndexError", "OverflowError",
    "KeyError", "ValueError", "UnicodeDecodeError", "JSONDecodeError", "Traceback",
)  # fmt: skip
DEADLINE_S = 0.5
# a bound far above the deadline (slow CI), far below what a per-read timeout would allow
BOUND_S = 8.0


def make_client(base_url: str, **kwargs: object) -> TargetClient:
    register_basic_credentials(CLIENT_ID, SECRET)
    return TargetClient(
        base_url=base_url,
        credentials=Credentials(CLIENT_ID, SECRET),
        timeout=DEADLINE_S,
        registry=default_registry(),
        log=ExchangeLog(),
        redactor=Redactor((SECRET,)),
        **kwargs,  # type: ignore[arg-type]
    )


def read_everything(client: TargetClient) -> str:
    """What a test would read; the text of the failure, or '' when the answer passed."""
    try:
        response = client.get("/config")
        response.json  # noqa: B018 - reading is the point
        response.is_json  # noqa: B018
    except ConformanceFailure as failure:
        return str(failure)
    return ""


@pytest.mark.parametrize("mode", [*MALFORMED_MODES, "hang", "trickle", "reset", "echo"])
def test_each_misbehaviour_is_a_clause_failure_within_the_deadline(mode):
    with HostileTarget(mode) as target:
        client = make_client(target.base_url)
        started = time.monotonic()
        message = read_everything(client)
        elapsed = time.monotonic() - started
        client.close()
    assert elapsed < BOUND_S, f"{mode}: {elapsed:.1f} s"
    for name in RAW_EXCEPTIONS:
        assert name not in message, f"{mode}: {message}"
    assert SECRET not in message
    for exchange in client.log.take():
        assert SECRET not in exchange.to_text()
    if mode not in ("echo", "naive-date", "duplicate-date", "unexpected-key", "error-500",
                    "retry-after-503", "empty-errors", "wrong-content-type"):  # fmt: skip
        assert message.startswith(("Conventions", "§")), f"{mode}: {message!r}"


def test_an_empty_200_where_a_resource_is_required_fails():
    with HostileTarget("empty-200") as target:
        client = make_client(target.base_url)
        with pytest.raises(ConformanceFailure, match="must carry the resource"):
            client.get("/config")


def test_a_trickling_target_is_cut_at_the_total_deadline():
    """One byte every 50 ms restarts a per-read timeout forever; the total deadline holds."""
    with HostileTarget("trickle", trickle_interval=0.05) as target:
        client = make_client(target.base_url)
        started = time.monotonic()
        with pytest.raises(ConformanceFailure, match="deadline"):
            client.get("/config")
        elapsed = time.monotonic() - started
    assert elapsed < BOUND_S


def test_consecutive_unanswered_requests_mark_the_target_down():
    state = ExchangeState()  # the session's, shared by its clients
    health = state.health
    with HostileTarget("reset") as target:
        client = make_client(target.base_url, state=state)
        for _ in range(health.limit):
            with pytest.raises(ConformanceFailure):
                client.get("/config")
    assert health.down is not None and "in a row" in health.down
    # once it is down, requests are not sent (and not waited on) any more
    with HostileTarget("hang") as target:
        with pytest.raises(ConformanceFailure, match="stopped answering"):
            make_client(target.base_url, state=state).get("/config")
        assert target.requests == 0


def test_two_long_unanswered_requests_in_a_row_mark_the_target_down():
    health = TargetHealth(limit=3, slow_s=15)
    health.unanswered("GET /a", "timed out", started=time.monotonic() - 20)  # sent 20 s ago
    assert health.down is None
    health.unanswered("GET /b", "timed out", started=time.monotonic() - 10)
    assert health.down is not None and "2 requests in a row" in health.down
    health.answered()
    quick = TargetHealth(limit=3, slow_s=15)
    quick.unanswered("GET /a", "refused")
    quick.unanswered("GET /b", "refused")
    assert quick.down is None  # two quick refusals are not yet a dead target


def test_an_answer_over_the_size_cap_is_too_large_not_unanswered():
    """Too large to read is still an answer: it names the cap and what arrived, and it
    neither counts towards "the target stopped answering" nor lets a streak go on."""
    state = ExchangeState()
    health = state.health
    with HostileTarget("oversized", oversized_bytes=1 << 20) as target:
        client = make_client(target.base_url, max_bytes=65_536, state=state)
        health.unanswered("GET /earlier", "refused")
        health.unanswered("GET /earlier", "refused")
        for _ in range(health.limit + 1):
            with pytest.raises(ConformanceFailure) as info:
                client.get("/config")
        assert health.down is None
        assert target.requests == health.limit + 1  # every one was sent
        health.unanswered("GET /later", "refused")  # a new streak, of one
        assert health.down is None
    message = str(info.value)
    assert message.startswith("Conventions: the answer to GET /config is read only up to")
    assert "size cap of 65536 bytes; this 200 answer is larger" in message
    assert "got more than 65536 bytes (the kit stopped reading at 655" in message
    assert "must answer" not in message and "no answer" not in message
    exchange = client.log.take()[-1]
    assert exchange.status == 200 and exchange.error is None
    assert "over the 65536-byte cap" in exchange.response_body
