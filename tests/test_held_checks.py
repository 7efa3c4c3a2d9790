"""A body's defect found by an answer check waits for the body to be read during a test
phase, so the status a test is about is judged first (``exchange/held_checks.py``)."""

from __future__ import annotations

import httpx
import pytest

from conformance.contract.failures import ConformanceFailure
from conformance.exchange.assertions import assert_status

from .answering_client import client_answering

# GET /config answered 200 with a body PlatformConfig's schema refuses (no id, local times)
BROKEN_CONFIG = {"createdAt": "2025-01-01T10:00:00+02:00", "updatedAt": "nope"}


def _client():
    return client_answering(lambda request: httpx.Response(200, json=BROKEN_CONFIG))


def test_outside_a_test_phase_a_body_failure_is_raised_at_the_request():
    client = _client()
    with pytest.raises(ConformanceFailure) as failed:
        client.get("/config")
    assert failed.value.check == "schema"


def test_in_a_phase_the_status_is_judged_before_the_body():
    client = _client()
    client.state.held.begin()
    response = client.get("/config")  # held, not raised
    with pytest.raises(ConformanceFailure) as status:
        assert_status(response, 400, "§7 Errors", "an invalid request answers 400")
    assert "expected 400; got 200" in str(status.value)
    with pytest.raises(ConformanceFailure) as body:
        response.json  # noqa: B018 - reading the body raises what its check found
    assert body.value.check == "schema" and body.value.charged_to is not None
    assert client.state.held.end() is None  # raised once read: not raised again


def test_a_held_failure_never_read_is_returned_at_the_phase_end():
    client = _client()
    client.state.held.begin()
    response = client.get("/config")
    assert response.status == 200  # the test read the status only
    unread = client.state.held.end()
    assert unread is not None and unread.check == "schema"
    # the next phase starts with nothing held
    client.state.held.begin()
    assert client.state.held.end() is None


def test_a_body_that_is_not_json_is_held_too():
    client = client_answering(lambda request: httpx.Response(200, content=b"{"))
    client.state.held.begin()
    response = client.get("/config")  # the decoding check judges the body
    assert response.held is not None and response.held.check == "decoding"
    assert client.state.held.end() is response.held


def test_a_server_error_is_never_held():
    # a 5xx is the status itself: it fails the request at once, charged to the operation
    client = client_answering(lambda request: httpx.Response(500, json={"message": "boom"}))
    client.state.held.begin()
    with pytest.raises(ConformanceFailure) as failed:
        client.get("/config")
    assert failed.value.check == "server-error" and failed.value.charged_to is not None
    # kept as what the phase first met: a Hypothesis replay that went another way (the
    # target answered 500 only now and then) reports it, not "answers differ"
    assert client.state.held.first_raised() is failed.value
    assert client.state.held.end() is None
