"""The six wallet-signed operations (§5 Authentication — embedded wallet, item 4) as the
wallet client performs them, and how the suite sees that a refused one changed nothing.

``POST /auth/credentials`` (a further credential), ``DELETE /auth/credentials/{id}``,
``DELETE /auth/sessions/{id}``, ``POST /internal-accounts/{id}/export``, ``PATCH
/internal-accounts/{id}`` and ``POST /quotes/{quoteId}/execute`` from an ``EMBEDDED_WALLET``
account. Each takes the signing key, or a forged signature / request id for the hostile
twin, and returns the :class:`~conformance.wallet.records.Signed` exchange.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import pytest

from conformance.contract import clauses
from conformance.contract.error_bodies import reason_of
from conformance.contract.error_codes import carries_code, code_of
from conformance.contract.failures import check, fail
from conformance.exchange.client import ApiResponse
from conformance.ground.secrets import register_secret
from conformance.payments.quote_bodies import quote_body
from conformance.wallet.bundles import BundleProblem, open_sealed_bundle, read_signed_bundle
from conformance.wallet.keys import WalletKey
from conformance.wallet.records import Credential, Session, Signed

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric import ec

    from conformance.payments.external_accounts import ExternalAccounts
    from conformance.payments.funding import Funding
    from conformance.payments.quotes import Quotes
    from conformance.wallet.format import WalletFormat

__all__ = ["WALLET_TYPE", "WalletOperations"]

WALLET_TYPE = "EMBEDDED_WALLET"
ACCOUNTS_CLAUSE = clauses.ACCOUNTS_ENDPOINTS


def _body(response: ApiResponse) -> dict[str, Any]:
    body = response.json if response.is_json else None
    return body if isinstance(body, dict) else {}


class _Client(Protocol):
    """What the operations need of the wallet client they are mixed into."""

    funding: Funding
    external_accounts: ExternalAccounts
    quotes: Quotes
    format: WalletFormat

    def enclave_key(self) -> ec.EllipticCurvePublicKey | None: ...
    def material(self, customer: dict[str, Any], kind: str) -> dict[str, Any]: ...
    def signed(
        self, method: str, path: str, body: dict[str, Any] | None, key: WalletKey | None,
        **forge: Any,
    ) -> Signed: ...  # fmt: skip
    def wallet_account(self, customer_id: str) -> dict[str, Any]: ...
    def privacy_flag(self, account: dict[str, Any]) -> Any: ...
    def current_privacy(self, customer_id: str, account_id: str) -> Any: ...
    def set_privacy(
        self, account_id: str, value: bool, key: WalletKey | None, **forge: Any
    ) -> Signed: ...


class WalletOperations:
    """Wallet-signed operations of one wallet client (mixed into ``EmbeddedWallet``)."""

    # -- the customer's embedded wallet ------------------------------------------------------

    def wallet_account(self: _Client, customer_id: str) -> dict[str, Any]:
        """The customer's EMBEDDED_WALLET internal account; skip when it has none (how one
        is opened is not shown; the reference opens it with the first credential)."""
        found = [
            a
            for a in self.funding.internal_accounts(customer_id)
            if a.get("type") == WALLET_TYPE and isinstance(a.get("id"), str) and a["id"]
        ]
        if not found:
            pytest.skip(
                "the customer has no EMBEDDED_WALLET internal account after registering a "
                "credential; how one is opened is not shown (§2 InternalAccount)"
            )
        return found[0]

    def privacy_flag(self: _Client, account: dict[str, Any]) -> Any:
        return account.get(self.format.privacy_field)

    def current_privacy(self: _Client, customer_id: str, account_id: str) -> Any:
        return self.privacy_flag(self.funding.account(customer_id, account_id))

    # -- the six operations ------------------------------------------------------------------

    def add_credential(
        self: _Client, customer: dict[str, Any], kind: str, key: WalletKey | None,
        **forge: Callable[[str], Any],
    ) -> Signed:  # fmt: skip
        """POST /auth/credentials for a further credential of ``kind``, signed by ``key``."""
        material = self.material(customer, kind)
        material.pop("_authenticator", None)
        material.pop("_identity", None)
        body = {"customerId": customer["id"], "type": kind, **material}
        return self.signed("POST", "/auth/credentials", body, key, **forge)

    def revoke_credential(
        self: _Client, credential: Credential, key: WalletKey | None,
        **forge: Callable[[str], Any],
    ) -> Signed:  # fmt: skip
        return self.signed("DELETE", f"/auth/credentials/{credential.id}", None, key, **forge)

    def revoke_session(
        self: _Client, session: Session, key: WalletKey | None,
        **forge: Callable[[str], Any],
    ) -> Signed:  # fmt: skip
        if session.id is None:
            pytest.skip(
                f"the verify answer shows no session id (at '{self.format.session_field}.id'); "
                "DELETE /auth/sessions/{id} needs one (override session_field through "
                "pytest_conformance_wallet_format)"
            )
        return self.signed("DELETE", f"/auth/sessions/{session.id}", None, key, **forge)

    def export(
        self: _Client, account_id: str, key: WalletKey | None, target: WalletKey,
        **forge: Callable[[str], Any],
    ) -> Signed:  # fmt: skip
        body = {"targetPublicKey": target.public_hex()}
        return self.signed("POST", f"/internal-accounts/{account_id}/export", body, key, **forge)

    def set_privacy(
        self: _Client, account_id: str, value: bool, key: WalletKey | None,
        **forge: Callable[[str], Any],
    ) -> Signed:  # fmt: skip
        body = {self.format.privacy_field: value}
        return self.signed("PATCH", f"/internal-accounts/{account_id}", body, key, **forge)

    def execute(
        self: _Client, quote_id: str, key: WalletKey | None, **forge: Callable[[str], Any]
    ) -> Signed:
        return self.signed("POST", f"/quotes/{quote_id}/execute", None, key, **forge)

    # -- what the operations give ------------------------------------------------------------

    def opened_export(self: _Client, answer: ApiResponse, target: WalletKey) -> bytes:
        """The wallet's private key from the export answer, opened with ``target``."""
        __tracebackhide__ = True
        bundle = _body(answer).get("exportBundle")
        try:
            if bundle is None:
                raise BundleProblem("exportBundle is missing")
            data = read_signed_bundle(bundle, self.enclave_key(), self.format)
            secret = open_sealed_bundle(data, target, self.format)
        except BundleProblem as exc:
            fail(
                clauses.ACCOUNTS_ENDPOINTS + " — POST /internal-accounts/{id}/export",
                "the signed export returns the wallet export, sealed to targetPublicKey "
                "(reference format: exportBundle, enclave-signed, HPKE-sealed)",
                observed=str(exc),
                exchange=answer.exchange,
            )
        register_secret(secret)
        return secret

    def wallet_quote(self: _Client, customer: dict[str, Any], amount: int = 10_000_000) -> Any:
        """A PENDING quote from the customer's funded EMBEDDED_WALLET account to a new
        external account: (quote, wallet account id)."""
        __tracebackhide__ = True
        account = self.wallet_account(str(customer["id"]))
        self.funding.fund_ok(str(account["id"]), amount * 10)
        destination = self.external_accounts.external_account(str(customer["id"]), "USD")
        quote = self.quotes.quote(
            quote_body(str(account["id"]), str(destination["id"]), amount=amount)
        )
        return quote, str(account["id"])

    # -- refusals ----------------------------------------------------------------------------

    def refused(
        self: _Client,
        response: ApiResponse,
        clause: str,
        statement: str,
        *,
        also: tuple[int, ...] = (),
        requirement: str | None = None,
    ) -> None:
        """A refusal: 401 UNAUTHORIZED with a reason naming the failed check (§5 item 6),
        or one of ``also`` (e.g. 400 for a malformed token); never a 2xx or a 5xx. An answer
        that is no refusal breaks ``requirement``, the rule that refuses it."""
        __tracebackhide__ = True
        body = _body(response)
        check(
            response.status == 401 or response.status in also,
            clause,
            statement,
            expected=" or ".join(str(s) for s in (401, *also)),
            observed=(response.status, reason_of(body) if body else response.content[:200]),
            exchange=response.exchange,
            requirement=requirement,
        )
        if response.status == 401:
            reason = reason_of(body)
            check(
                carries_code(body, "UNAUTHORIZED") and isinstance(reason, str) and reason.strip(),
                clauses.AUTHENTICATION + " — embedded wallet, item 6",
                "authentication failures return 401 UNAUTHORIZED with a reason naming the "
                "failed check",
                expected="code UNAUTHORIZED and a non-empty reason",
                observed=(code_of(body), reason),
                exchange=response.exchange,
            )
        check(
            "encryptedSessionSigningKey" not in body and "exportBundle" not in body,
            clause,
            "a refused request hands out no session signing key and no export",
            observed=sorted(body),
            exchange=response.exchange,
        )

    def privacy_unchanged(
        self: _Client, customer_id: str, account_id: str, before: Any, why: str
    ) -> None:
        __tracebackhide__ = True
        after = self.current_privacy(customer_id, account_id)
        check(
            after == before,
            clauses.AUTHENTICATION + " — embedded wallet, item 4",
            f"{why}: the wallet privacy flag is unchanged",
            expected=before,
            observed=after,
        )

    def still_signs(self: _Client, session: Session, account_id: str, why: str) -> None:
        """The session's key still authorizes a signed operation (a privacy update that sets
        the flag to its current value)."""
        __tracebackhide__ = True
        current = self.current_privacy(session.customer_id, account_id)
        done = self.set_privacy(account_id, bool(current), session.key)
        check(
            done.answer.status == 200,
            clauses.AUTHENTICATION + " — embedded wallet, item 4",
            f"{why}: the session's signing key still authorizes a signed operation",
            expected=200,
            observed=(done.answer.status, reason_of(_body(done.answer))),
            exchange=done.answer.exchange,
        )
