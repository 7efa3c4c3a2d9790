"""Benchmark: the embedded-wallet cryptography, operations per second, and the wallet tests.

Each figure pairs the suite's client side with the reference's server side, so it measures
what one wallet exchange costs on both ends (on this machine, one core):

- P-256: key generation, a wallet signature (suite) and its verification (reference);
- HPKE (DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM): a seal by the suite and the
  open by the reference (an OTP bundle), and the reverse (a session key);
- WebAuthn: a soft-authenticator assertion (suite) verified by py_webauthn (reference's
  library);
- OIDC: a token minted by the suite and parsed and claim-checked by the reference.

With ``--suite`` it also times the wallet tests of the conformance run against the embedded
sandbox (serial), the figure the closing notes ask for.

Usage: ``python benchmarks/wallet_crypto.py [--seconds 1.0] [--suite]``
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import webauthn

from conformance.wallet.authenticator import SoftAuthenticator, b64url_decode, browser_credential
from conformance.wallet.hpke import open_sealed as suite_open
from conformance.wallet.hpke import seal as suite_seal
from conformance.wallet.keys import WalletKey
from conformance.wallet.tokens import Identity, TokenMinter
from reference.kernel.settings import ServerSettings
from reference.wallet import crypto as wallet_crypto
from reference.wallet import oidc as wallet_oidc

RP_ID = "wallet.sandbox.gpsi.test"
ORIGIN = "https://wallet.sandbox.gpsi.test"


def rate(operation: Callable[[], Any], seconds: float) -> float:
    """Operations per second of ``operation`` over about ``seconds`` of wall time."""
    operation()  # warm caches and imports outside the measurement
    count, start = 0, time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        operation()
        count += 1
    return round(count / (time.perf_counter() - start), 1)


def crypto_rates(seconds: float) -> dict[str, float]:
    """Operations per second for each wallet operation."""
    wallet = WalletKey.generate()
    payload = json.dumps({"operation": "DELETE /auth/sessions/x", "requestId": "r"})
    signature = wallet.sign(payload)
    server_key = wallet_crypto.new_key()
    server_public = bytes.fromhex(wallet_crypto.public_hex(server_key.public_key()))
    otp = json.dumps({"otp_code": "000000", "public_key": wallet.public_hex(compressed=True)})
    enc, ciphertext = suite_seal(server_public, otp.encode())
    sealed_otp = wallet_crypto.Sealed(enc, ciphertext)
    session_key = wallet_crypto.seal(wallet.public, b"\x01" * 32)

    authenticator = SoftAuthenticator(RP_ID, ORIGIN)
    challenge = "Y2hhbGxlbmdlLWJ5dGVzLWZvci10aGUtYmVuY2htYXJr"
    registration = authenticator.attestation(challenge)
    registered = webauthn.verify_registration_response(
        credential=browser_credential(registration),
        expected_challenge=b64url_decode(challenge),
        expected_rp_id=RP_ID,
        expected_origin=ORIGIN,
    )

    def assert_and_verify() -> None:
        assertion = authenticator.assertion(challenge)
        webauthn.verify_authentication_response(
            credential=browser_credential(assertion),
            expected_challenge=b64url_decode(challenge),
            expected_rp_id=RP_ID,
            expected_origin=ORIGIN,
            credential_public_key=registered.credential_public_key,
            credential_current_sign_count=authenticator.counter - 1,
        )

    settings = ServerSettings()
    minter = TokenMinter()
    identity = Identity("https://oidc.sandbox.gpsi.test", "wallet-app", "user-1")

    return {
        "p256_keygen_per_s": rate(WalletKey.generate, seconds),
        "wallet_sign_per_s (suite)": rate(lambda: wallet.sign(payload), seconds),
        "wallet_verify_per_s (reference)": rate(
            lambda: wallet_crypto.signature_valid(wallet.public, signature, payload), seconds
        ),
        "hpke_seal_per_s (suite, OTP bundle)": rate(
            lambda: suite_seal(server_public, otp.encode()), seconds
        ),
        "hpke_open_per_s (reference, OTP bundle)": rate(
            lambda: wallet_crypto.open_sealed(server_key, sealed_otp), seconds
        ),
        "hpke_seal_per_s (reference, session key)": rate(
            lambda: wallet_crypto.seal(wallet.public, b"\x01" * 32), seconds
        ),
        "hpke_open_per_s (suite, session key)": rate(
            lambda: suite_open(wallet, session_key.encapped, session_key.ciphertext), seconds
        ),
        "webauthn_assert_and_verify_per_s": rate(assert_and_verify, seconds),
        "oidc_mint_and_check_per_s": rate(
            lambda: wallet_oidc.check(settings, minter.for_identity(identity)), seconds
        ),
    }


def wallet_suite_run() -> dict[str, Any]:
    """Wall time of the wallet tests against the embedded sandbox, serial."""
    with tempfile.TemporaryDirectory() as reports:
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "conformance.run.cli", "run", f"--report-dir={reports}",
             "--", "-k", "wallet"],
            capture_output=True, text=True, check=False, timeout=600,
        )  # fmt: skip
        wall = time.perf_counter() - started
        summary_path = Path(reports) / "summary.json"
        summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
    return {
        "exit_code": done.returncode,
        "wall_s": round(wall, 1),
        "totals": summary.get("totals"),
        "requests": summary.get("requests"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per operation")
    parser.add_argument("--suite", action="store_true", help="also time the wallet tests")
    args = parser.parse_args()
    result: dict[str, Any] = {"crypto": crypto_rates(args.seconds)}
    if args.suite:
        result["wallet_tests"] = wallet_suite_run()
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
