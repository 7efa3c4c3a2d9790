"""The suite's client against a real loopback server: failures are clear, evidence is redacted."""

from __future__ import annotations

import json
import shlex
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conformance.contract.failures import ConformanceFailure
from conformance.contract.schemas import default_registry
from conformance.exchange.client import ExchangeLog, RawAuthorization, TargetClient
from conformance.exchange.evidence import Redactor
from conformance.ground.profile import Credentials

SECRET = "very-secret-value-123"
CREDENTIALS = Credentials("tok_id", SECRET)
SECOND = Credentials(
    "tok_second", "second-secret-value-456",
    "CONFORMANCE_SECOND_CLIENT_ID", "CONFORMANCE_SECOND_CLIENT_SECRET",
)  # fmt: skip
RELEASE = threading.Event()

VALID_CONFIG = {
    "id": "PlatformConfig:0b6a5d8e-7c4f-4e4a-9d61-8f3b2a1c0d9e",
    "umaDomain": "pay.example.com",
    "supportedCurrencies": [],
    "createdAt": "2026-01-01T00:00:00Z",
    "updatedAt": "2026-01-01T00:00:00Z",
}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def reply(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        path = self.path.removeprefix("/2025-10-13")
        if path == "/config":
            self.reply(200, json.dumps(VALID_CONFIG).encode())
        elif path == "/bad/2025-10-13/config":
            self.reply(200, json.dumps({**VALID_CONFIG, "id": "Config:1"}).encode())
        elif path == "/html":
            self.reply(200, b"<html>oops</html>", "text/html")
        elif path == "/big":
            self.reply(200, b"[" + b"1," * 600_000 + b"1]")
        elif path == "/slow":
            RELEASE.wait(10)
            self.reply(200, b"{}")
        elif path == "/repeated/2025-10-13/config":  # "umaDomain" twice: which one is it?
            text = json.dumps(VALID_CONFIG)[:-1] + ', "umaDomain": "other.example.com"}'
            self.reply(200, text.encode())
        elif path == "/tokens":  # two access tokens under one name
            self.reply(200, b'{"accessToken": "tok-first-111", "accessToken": "tok-second-222"}')
        elif path == "/echo":
            auth = self.headers.get("Authorization", "")
            body = {"seen": auth, "token": "tok-abc", "note": f"secret is {SECRET}"}
            self.reply(200, json.dumps(body).encode())

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        self.rfile.read(length)
        self.reply(200, b"{}")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/2025-10-13"
    RELEASE.set()
    httpd.shutdown()
    httpd.server_close()


def make_client(base_url: str, *, timeout: float = 5.0, max_bytes: int = 1_000_000) -> TargetClient:
    return TargetClient(
        base_url=base_url,
        credentials=CREDENTIALS,
        timeout=timeout,
        registry=default_registry(),
        log=ExchangeLog(),
        redactor=Redactor((SECRET, SECOND.client_secret), (CREDENTIALS, SECOND)),
        max_bytes=max_bytes,
    )


def test_a_valid_response_passes_schema_validation(server):
    response = make_client(server).get("/config")
    assert response.status == 200 and response.json["umaDomain"] == "pay.example.com"


def test_a_schema_violation_names_the_clause_and_the_field(server):
    bad_target = server.replace("/2025-10-13", "/bad/2025-10-13")
    with pytest.raises(ConformanceFailure) as info:
        make_client(bad_target).get("/config")
    message = str(info.value)
    assert message.startswith("§2 Resources and their fields")
    assert "platform-config" in message and "id" in message
    assert "reproduce: curl" in message


def test_non_json_bodies_fail_clearly(server):
    response = make_client(server).get("/html", validate=False)
    with pytest.raises(ConformanceFailure, match="bodies are JSON unless stated"):
        _ = response.json


def test_responses_over_the_size_cap_fail_as_too_large(server):
    with pytest.raises(ConformanceFailure) as info:
        make_client(server, max_bytes=100_000).get("/big", validate=False)
    message = str(info.value)
    assert "the kit's size cap of 100000 bytes; this 200 answer is larger" in message
    assert "got Content-Length 1200003, so the body was not read" in message


def test_an_answer_that_repeats_a_member_fails_the_json_bodies_requirement(server):
    """Read with the last value, this configuration passes its schema: it must not."""
    repeated = server.replace("/2025-10-13", "/repeated/2025-10-13")
    with pytest.raises(ConformanceFailure) as info:
        make_client(repeated).get("/config")
    message = str(info.value)
    assert message.startswith("Conventions: bodies are JSON (COMMON-JSON-BODIES)")
    assert "repeats 'umaDomain' at $" in message
    assert "the member 'umaDomain' 2 times in the object at $" in message
    assert "reproduce: curl" in message
    response = make_client(repeated).get("/config", validate=False)
    assert response.is_json  # it is JSON; reading it is what fails
    with pytest.raises(ConformanceFailure, match="repeats 'umaDomain'"):
        _ = response.json


def test_every_value_of_a_repeated_secret_member_is_scrubbed_from_evidence(server):
    client = make_client(server)
    client.get("/tokens", validate=False)
    client.get("/echo", validate=False)
    text = "\n".join(e.to_text() for e in client.log.take())
    assert "tok-first-111" not in text and "tok-second-222" not in text
    assert text.count('"accessToken"') == 2  # shown as received: the repeat is the evidence


def test_a_hanging_target_times_out_with_a_clear_failure(server):
    with pytest.raises(ConformanceFailure, match="timed out"):
        make_client(server, timeout=0.5).get("/slow", validate=False)


def test_a_closed_port_fails_clearly():
    with pytest.raises(ConformanceFailure, match="connection failed"):
        make_client("http://127.0.0.1:9/2025-10-13", timeout=2).get("/config")


def test_evidence_never_holds_a_secret(server):
    client = make_client(server)
    client.post("/anything", json={"code": "000000", "otp": "123456", "name": "kept"},
                validate=False)  # fmt: skip
    client.get("/echo", validate=False)
    exchanges = client.log.take()
    text = "\n".join(e.to_text() for e in exchanges)
    assert SECRET not in text and "000000" not in text and "123456" not in text
    assert "tok-abc" not in text  # a token in a response body is masked too
    assert "kept" in text
    assert "Basic <redacted>" in text
    post = exchanges[0]
    assert '-u "$CONFORMANCE_CLIENT_ID:$CONFORMANCE_CLIENT_SECRET"' in post.curl
    assert '"$CONFORMANCE_BASE_URL"/anything' in post.curl
    assert SECRET not in post.curl and "000000" not in post.curl


def test_a_curl_line_sends_the_exact_bytes_unless_they_hold_a_secret(server):
    """A body without a secret is sent as it was (a signed delivery's signature covers those
    bytes, spacing and member order included); one with a secret is re-serialised, masked."""
    client = make_client(server)
    exact = b'{"b": 1,  "a":"kept", "n": 1.50}'
    client.post("/anything", content=exact, headers={"Content-Type": "application/json"},
                validate=False)  # fmt: skip
    client.post("/anything", json={"code": "482917", "b": 1}, validate=False)
    # the profile's secret under a harmless name, each letter \u-escaped: whole once decoded
    escaped = "".join(f"\\u{ord(c):04x}" for c in SECRET)
    client.post("/anything", content=f'{{"note": "{escaped}"}}'.encode(),
                headers={"Content-Type": "application/json"}, validate=False)  # fmt: skip
    plain, secret, hidden = client.log.take()
    assert shlex.quote(exact.decode()) in plain.curl
    assert "482917" not in secret.curl and '"code":"<redacted>"' in secret.curl
    assert escaped not in hidden.curl and SECRET not in hidden.curl, hidden.curl


def test_raw_authorization_headers_are_sent_but_not_shown(server):
    client = make_client(server)
    response = client.get("/echo", auth=RawAuthorization(f"Bearer {SECRET}"), validate=False)
    assert response.json["seen"] == f"Bearer {SECRET}"
    assert SECRET not in response.exchange.to_text()


def _curl_of(server, auth) -> str:
    return make_client(server).get("/echo", auth=auth, validate=False).exchange.curl


def test_the_curl_line_sends_the_wrong_secret_the_test_sent(server):
    """§5's wrong-secret test: its curl line must not send the profile's secret."""
    curl = _curl_of(server, Credentials("tok_id", "wrong-" + "x" * 16))
    assert '-u "$CONFORMANCE_CLIENT_ID:<a secret that is not the profile\'s>"' in curl
    assert "CONFORMANCE_CLIENT_SECRET" not in curl and "wrong-" not in curl


def test_the_curl_line_names_each_profile_credential_by_its_variable(server):
    assert '-u "$CONFORMANCE_CLIENT_ID:$CONFORMANCE_CLIENT_SECRET"' in _curl_of(server, CREDENTIALS)
    assert '-u "$CONFORMANCE_SECOND_CLIENT_ID:$CONFORMANCE_SECOND_CLIENT_SECRET"' in _curl_of(
        server, SECOND
    )
    # a pair the profile does not hold, made of two halves it does: each half by its variable
    mixed = _curl_of(server, Credentials("tok_second", SECRET))
    assert '-u "$CONFORMANCE_SECOND_CLIENT_ID:$CONFORMANCE_CLIENT_SECRET"' in mixed
    unknown = _curl_of(server, Credentials("unknown-abc", "also-unknown-secret"))
    assert ('-u "<a token id that is not the profile\'s>:<a secret that is not the '
            'profile\'s>"') in unknown  # fmt: skip
    assert "unknown-abc" not in unknown and "also-unknown" not in unknown


def test_the_curl_line_keeps_a_malformed_header_and_hides_other_credentials(server):
    assert "-H 'authorization: Basic !!not-base64!!'" in _curl_of(
        server, RawAuthorization("Basic !!not-base64!!")
    )
    assert '-u ":"' in _curl_of(server, RawAuthorization("Basic Og=="))  # an empty pair
    # the token id alone, no colon: encoded in the shell from its variable
    assert '''-H "authorization: Basic $(printf %s "$CONFORMANCE_CLIENT_ID" | base64)"''' in (
        _curl_of(server, RawAuthorization("Basic dG9rX2lk"))  # base64 of tok_id
    )
    raw_pair = _curl_of(server, RawAuthorization("Basic dG9rX2lkOm5vcGU="))  # tok_id:nope
    assert '-u "$CONFORMANCE_CLIENT_ID:<a secret that is not the profile\'s>"' in raw_pair
    bearer = _curl_of(server, RawAuthorization("Bearer forged-token-value-123"))
    assert "authorization: Bearer <a token that is not a profile credential>" in bearer
    assert "forged-token" not in bearer
    assert "authorization" not in _curl_of(server, None).lower()
