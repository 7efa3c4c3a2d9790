"""``conformance vectors``: the shipped webhook test vectors verify with ``cryptography``
alone as their verdicts say, are the same bytes every time, cover every delivery the
receiver check sends, and each receiver mistake is caught by its own vector."""

from __future__ import annotations

import base64
import binascii
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from conformance.run import vectors_command
from conformance.webhooks.delivering.deliveries import FORGERIES
from conformance.webhooks.delivering.event_bodies import EVENT_TYPES
from tests.receiver.receivers import _answer, _State
from tests.receiver.test_receiver_check import MISTAKES


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("vectors")
    assert vectors_command.main(["--out", str(out)]) == 0
    return out, json.loads((out / "vectors.json").read_text(encoding="utf-8"))


def _verifies(public_pem: str, delivery: dict[str, Any]) -> bool:
    """§5 done with cryptography only: base64 signature, SHA-256 of the exact body, P-256."""
    key = serialization.load_pem_public_key(public_pem.encode())
    assert isinstance(key, ec.EllipticCurvePublicKey)
    header = delivery["headers"].get("X-Service-Signature")
    if not header:
        return False
    try:
        signature = base64.b64decode(header, validate=True)
        key.verify(signature, base64.b64decode(delivery["body_base64"]), ec.ECDSA(hashes.SHA256()))
    except (binascii.Error, ValueError, InvalidSignature):
        return False
    return True


def test_every_vector_verifies_as_its_verdict_says(written):
    out, document = written
    public_pem = (out / "public-key.pem").read_text()
    assert public_pem == document["public_key_pem"]
    assert document["vectors"]
    for vector in document["vectors"]:
        assert vector["expect"] in ("accept", "reject") and vector["why"], vector["name"]
        assert vector["clause"].startswith("§"), vector["name"]
        assert _verifies(public_pem, vector) is (vector["expect"] == "accept"), vector["name"]
        for first in vector["before"]:
            assert _verifies(public_pem, first), vector["name"]
        body = (out / vector["body_file"]).read_bytes()
        assert body == base64.b64decode(vector["body_base64"])
        json.loads(body)  # every body is JSON, even the forged ones


def test_the_set_is_the_same_bytes_every_time(written, tmp_path):
    out, _ = written
    assert vectors_command.main(["--out", str(tmp_path)]) == 0
    first = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    again = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert first == again


def test_the_set_holds_every_delivery_of_the_receiver_check(written):
    _, document = written
    names = [v["name"] for v in document["vectors"]]
    assert len(names) == len(set(names))
    rejected = {v["name"].removeprefix("reject-") for v in document["vectors"]
                if v["expect"] == "reject"}  # fmt: skip
    assert rejected == {f.name for f in FORGERIES}
    accepted = [v for v in document["vectors"] if v["expect"] == "accept"]
    # the TEST event, each named type, the repeat, two out-of-order pairs
    assert len(accepted) == 1 + len(EVENT_TYPES) + 1 + 2
    types = {json.loads(base64.b64decode(v["body_base64"]))["type"] for v in accepted}
    assert types >= {t.name for t in EVENT_TYPES} | {"TEST"}
    assert all(v["mistake"] for v in document["vectors"] if v["expect"] == "reject")


def _verdicts(behaviour: str, public_pem: str, vector: dict[str, Any]) -> list[bool]:
    """Whether ``behaviour`` (a receiver of ``receivers.py``) accepted each delivery of the
    vector, the ones before it first, on a fresh receiver."""
    state = _State(behaviour, public_pem)
    accepted = []
    for delivery in [*vector["before"], vector]:
        status = _answer(
            state,
            base64.b64decode(delivery["body_base64"]),
            delivery["headers"].get("X-Service-Signature"),
        )
        accepted.append(status is not None and 200 <= status < 300)
    return accepted


@pytest.mark.parametrize("behaviour", ["correct", "either-encoding", *sorted(MISTAKES)])
def test_a_receiver_mistake_is_caught_by_its_own_vector_only(written, behaviour):
    _, document = written
    wrong = []
    for vector in document["vectors"]:
        *before, last = _verdicts(behaviour, document["public_key_pem"], vector)
        assert all(before), vector["name"]
        if last is not (vector["expect"] == "accept"):
            wrong.append(vector["name"])
    assert wrong == ([f"reject-{MISTAKES[behaviour]}"] if behaviour in MISTAKES else [])
