"""Challenges of ``POST /auth/credentials/{id}/challenge`` as stored and found again by
verify: what each needs (an OTP's per-challenge target key, a passkey's challenge and the
client's key), single use, 5 minutes."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from reference.kernel.clock import iso, parse_iso, utc_now
from reference.kernel.db import Database, from_json, to_json
from reference.kernel.errors import Unauthorized

LIFETIME = timedelta(minutes=5)


@dataclass(frozen=True, slots=True)
class Challenge:
    """One open challenge of a credential."""

    id: str
    credential_id: str
    state: dict[str, Any]


def open_challenge(db: Database, credential_id: str, state: dict[str, Any]) -> Challenge:
    """Store a challenge; its id is the ``requestId`` the client echoes."""
    challenge = Challenge(str(uuid.uuid4()), credential_id, state)
    db.execute(
        """INSERT INTO wallet_challenges (id, credential_id, state, expires_at)
           VALUES (?, ?, ?, ?)""",
        (challenge.id, credential_id, to_json(state), iso(utc_now() + LIFETIME)),
    )
    return challenge


def find(db: Database, credential_id: str, request_id: str | None) -> Challenge:
    """The challenge ``request_id`` names, or the latest open one of the credential when the
    client sent none (OTP verify: ``Request-Id`` optional); 401 naming what is wrong."""
    if request_id:
        row = db.fetchone(
            "SELECT * FROM wallet_challenges WHERE id = ? AND credential_id = ?",
            (request_id, credential_id),
        )
        if row is None:
            raise Unauthorized("unknown request id")
    else:
        row = db.fetchone(
            """SELECT * FROM wallet_challenges WHERE credential_id = ? AND used = 0
               ORDER BY seq DESC LIMIT 1""",
            (credential_id,),
        )
        if row is None:
            raise Unauthorized("no open challenge")
    if row["used"]:
        raise Unauthorized("challenge already used")
    if parse_iso(row["expires_at"]) <= utc_now():
        raise Unauthorized("challenge expired")
    return Challenge(row["id"], row["credential_id"], from_json(row["state"]))


def use(db: Database, challenge: Challenge) -> None:
    """Use the challenge up (of two concurrent verifies, only one succeeds)."""
    if not db.execute(
        "UPDATE wallet_challenges SET used = 1 WHERE id = ? AND used = 0", (challenge.id,)
    ):
        raise Unauthorized("challenge already used")
