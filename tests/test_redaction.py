"""Every secret the run knows is scrubbed in every form an artefact can hold it."""

from __future__ import annotations

import base64
import html
import json
import re
from unittest.mock import patch
from urllib.parse import quote, quote_plus

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.exchange.evidence import Redactor
from conformance.ground import redaction
from conformance.ground.redaction import (
    REDACTED,
    _Matcher,
    scrub,
    scrub_obj,
    scrub_report,
    scrub_tree,
)
from conformance.ground.secrets import (
    register_basic_credentials,
    register_one_time_code,
    register_secret,
)

CLIENT_ID = "tok_redaction_test"
SECRET = 'redaction-Secret/with+"quotes"&<tags>=1'
BASIC = base64.b64encode(f"{CLIENT_ID}:{SECRET}".encode()).decode()


@pytest.fixture(autouse=True, scope="module")
def registered():
    register_basic_credentials(CLIENT_ID, SECRET)


FORMS = {
    "raw": SECRET,
    "base64": base64.b64encode(SECRET.encode()).decode(),
    "url-safe base64": base64.urlsafe_b64encode(SECRET.encode()).decode().rstrip("="),
    "basic token": BASIC,
    "basic header URL-encoded": quote(f"Basic {BASIC}", safe=""),
    "url-encoded": quote(SECRET, safe=""),
    "form-encoded": quote_plus(SECRET),
    "json-escaped": json.dumps(SECRET)[1:-1],
    "json-escaped ascii": json.dumps(SECRET, ensure_ascii=True)[1:-1],
    "json-escaped, slashes too": json.dumps(SECRET)[1:-1].replace("/", "\\/"),
    "hex": SECRET.encode().hex(),
    "hex, upper case": SECRET.encode().hex().upper(),
    "html-escaped": html.escape(SECRET),
    "inside another id's basic token": base64.b64encode(f"other-id:{SECRET}".encode()).decode(),
    "inside a longer base64 (offset 1)": base64.b64encode(b"ab" + SECRET.encode()).decode(),
}


@pytest.mark.parametrize("form", FORMS)
def test_each_form_is_scrubbed_inside_larger_text(form):
    value = FORMS[form]
    text = f"<html><p>error: could not use '{value}' here</p></html>"
    cleaned = scrub(text)
    assert REDACTED in cleaned
    assert SECRET not in cleaned and BASIC not in cleaned
    assert value not in cleaned


def test_a_private_key_pem_is_scrubbed_whole_by_line_and_json_escaped():
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    register_secret(pem)
    body = "".join(pem.strip().splitlines()[1:-1])
    for text in (pem, json.dumps({"privateKey": pem}), body, pem.splitlines()[1]):
        cleaned = scrub(f"key: {text}!")
        assert REDACTED in cleaned
        for line in pem.strip().splitlines()[1:-1]:
            if len(line) >= 16:
                assert line not in cleaned


def _escaped(text: str, every: int) -> str:
    """``text`` as a JSON string's content with every ``every``-th character \\u-escaped
    (any mix of escapes is valid JSON)."""
    return "".join(
        f"\\u{ord(c):04x}" if i % every == 0 else json.dumps(c)[1:-1] for i, c in enumerate(text)
    )


@pytest.mark.parametrize("every", [1, 2, 5])
def test_a_secret_spelt_with_json_escapes_is_scrubbed_at_any_depth(every):
    """A target may echo a secret in a JSON string with any characters \\u-escaped; it is
    found once the literal is decoded, also in JSON held in a JSON string (an exchange in
    an Allure result's message)."""
    body = f'{{"note": "{_escaped(SECRET, every)}", "kept": "plain \\u00e9t\\u00e9"}}'
    assert SECRET not in json.loads(body)["kept"]
    for text in (body, json.dumps({"message": body}), json.dumps([json.dumps({"m": body})])):
        cleaned = scrub(text)
        assert REDACTED in cleaned, cleaned
        decoded = cleaned
        for _ in range(3):  # undo the nesting: nothing of the secret anywhere inside
            assert SECRET not in decoded and _escaped(SECRET, every) not in decoded
            decoded = decoded.encode().decode("unicode_escape", errors="replace")
        assert "plain" in cleaned


def test_escapes_that_hide_no_secret_are_left_as_they_are():
    text = '{"name": "Ren\\u00e9e", "quote": "a \\"b\\" c"} and "unclosed \\u0041'
    assert scrub(text) == text


def test_one_time_codes_are_scrubbed_only_where_they_stand_alone():
    register_one_time_code("482913")
    assert scrub("code 482913 sent") == f"code {REDACTED} sent"
    assert scrub('{"code":"482913"}') == f'{{"code":"{REDACTED}"}}'
    assert scrub("amount 14829130") == "amount 14829130"


def test_secrets_learnt_from_exchanges_are_scrubbed_everywhere():
    redactor = Redactor()
    redactor.headers([("Authorization", "Bearer agent-token-abcdef0123456789")])
    redactor.body(b'{"accessToken": "access-token-9876543210"}', request=False)
    text = scrub("token agent-token-abcdef0123456789 then access-token-9876543210")
    assert "agent-token" not in text and "access-token" not in text


def test_a_request_s_one_time_code_is_masked_but_not_a_currency_code():
    """``code`` in a request is a one-time code (confirm, authorize), except in a currency
    object (the events a receiver check delivers): ``USD`` stays readable everywhere."""
    redactor = Redactor()
    confirm = redactor.body(b'{"code": "731946"}', request=True)
    assert "731946" not in confirm and REDACTED in confirm
    event = (
        b'{"type": "OUTGOING_PAYMENT.COMPLETED", "data": {"sentAmount": {"amount": 1000,'
        b' "currency": {"code": "XPF", "name": "CFP franc", "decimals": 0}}}}'
    )
    shown = redactor.body(event, request=True)
    assert '"code": "XPF"' in shown and REDACTED not in shown
    assert scrub("sent 1000 XPF") == "sent 1000 XPF"  # not learnt as a one-time code


def test_deeply_nested_values_are_scrubbed_without_recursion():
    value: object = SECRET
    for _ in range(50_000):
        value = [value]
    cleaned = scrub_obj({"a": value})
    inner = cleaned["a"]
    while isinstance(inner, list):
        inner = inner[0]
    assert inner == REDACTED


def test_a_report_is_scrubbed_in_place(pytester):
    pytester.makepyfile(
        f"""
        def test_echo():
            print({SECRET!r})
            assert False, "the target said: {BASIC}"
        """
    )
    reports = pytester.inline_run().getreports("pytest_runtest_logreport")
    failed = next(r for r in reports if r.when == "call")
    scrub_report(failed)
    text = str(failed.longrepr) + "".join(t for _, t in failed.sections)
    assert SECRET not in text and BASIC not in text and REDACTED in text


def test_the_report_folder_is_scrubbed(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.xml").write_text(f"<failure message='{html.escape(SECRET)}'/>")
    (tmp_path / "b.bin").write_bytes(b"\xff\xfe" + BASIC.encode())
    changed = scrub_tree(tmp_path)
    assert len(changed) == 2
    assert html.escape(SECRET) not in (tmp_path / "sub" / "a.xml").read_text()
    assert BASIC.encode() not in (tmp_path / "b.bin").read_bytes()


def _leftmost_longest(text: str, forms: set[str]) -> str:
    """The plain definition the matcher must agree with: scan left to right; at each
    position take the longest form that starts there; go on after it."""
    ordered = sorted(forms, key=len, reverse=True)
    parts, i, last = [], 0, 0
    while i < len(text):
        form = next((f for f in ordered if text.startswith(f, i)), None)
        if form is None:
            i += 1
            continue
        parts += [text[last:i], REDACTED]
        i = last = i + len(form)
    parts.append(text[last:])
    return "".join(parts)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(
    forms=st.sets(st.text("ab", min_size=8, max_size=70), min_size=1, max_size=120),
    pieces=st.lists(st.text("abc", max_size=40), max_size=12),
    picks=st.lists(st.integers(0, 10_000), max_size=12),
)
def test_the_matcher_finds_what_a_plain_leftmost_longest_scan_finds(forms, pieces, picks):
    """Over a two-letter alphabet forms overlap and nest; every gram width is used, each
    tier searched both form by form and through its block index."""
    ordered = sorted(forms)
    chosen = [ordered[p % len(ordered)] for p in picks]
    text = "".join(piece + form for piece, form in zip(pieces, chosen, strict=False))
    expected = _leftmost_longest(text, forms)
    # a caller's extra secrets are a matcher of their own, searched in the same pass
    split = set(ordered[::2])
    for find_limit in (0, 10**9, redaction._FIND_LIMIT):  # index only, find only, as shipped
        with patch.object(redaction, "_FIND_LIMIT", find_limit):
            assert _Matcher(set(forms), frozenset()).sub(text) == expected, find_limit
            also = _Matcher(forms - split, frozenset())
            assert _Matcher(split, frozenset()).sub(text, also=also) == expected, find_limit


def test_a_callers_extra_secret_and_secrets_learnt_after_it_are_both_scrubbed():
    extra = ("extra-secret-of-one-client-0001",)
    assert scrub(f"a {extra[0]} b", extra) == f"a {REDACTED} b"
    later = "a-secret-learnt-after-the-extra-one"
    register_secret(later)
    assert scrub(f"{extra[0]}|{later}", extra) == f"{REDACTED}|{REDACTED}"
    assert scrub(f"{extra[0]}|{later}") == f"{extra[0]}|{REDACTED}"  # the extra is the caller's


@settings(max_examples=300, derandomize=True, deadline=None)
@given(
    codes=st.sets(st.text("12a-", min_size=4, max_size=8), min_size=1, max_size=6),
    text=st.text("12a- x", max_size=80),
)
def test_one_time_codes_are_scrubbed_exactly_where_a_word_boundary_regex_finds_them(codes, text):
    """The plain definition: a code with no ASCII letter or digit either side, the longest
    first where two start at one place."""
    longest_first = sorted(codes, key=lambda c: (-len(c), c))
    plain = re.compile(
        "|".join(rf"(?<![0-9A-Za-z]){re.escape(c)}(?![0-9A-Za-z])" for c in longest_first)
    )
    assert _Matcher(set(), frozenset(codes)).sub(text) == plain.sub(REDACTED, text)


def test_allure_results_hold_no_secret_as_they_are_written(tmp_path):
    """Write time, not the last pass: a result naming the secret in its name, a parameter
    and a failure message is written scrubbed, and stays valid JSON."""
    from allure_commons.logger import AllureFileLogger
    from allure_commons.model2 import Parameter, StatusDetails, TestResult

    from conformance.ground.redaction import install_allure_scrubbing

    install_allure_scrubbing()
    result = TestResult(
        name=f"test with {SECRET}",
        uuid="u1",
        parameters=[Parameter(name="token", value=json.dumps({"secret": SECRET}))],
        statusDetails=StatusDetails(message=f"got {FORMS['json-escaped']} and {BASIC}"),
    )
    AllureFileLogger(str(tmp_path)).report_result(result)
    (written,) = tmp_path.glob("*-result.json")
    text = written.read_text(encoding="utf-8")
    assert not [name for name, form in FORMS.items() if form in text]
    assert json.loads(text)["name"] == f"test with {REDACTED}"
