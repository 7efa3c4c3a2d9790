"""Which requirements each §4 operation belongs to: a 5xx answer to it is charged there once.

§4 states what each operation answers (and §7 the errors); a 5xx is never among them, so a
5xx answer breaks the statement of the operation the request was sent to
(``exchange/server_errors.py``). The defect is charged to the operation's own requirement:
the ``endpoints`` requirement stating that the operation works where there is one, else the
best-named requirement of the operation (:data:`CHARGED`). Its other owners are every
requirement whose statement names the operation (backticked ``METHOD /path``, matched to the
operation the way the coverage map matches a request, ``interface_catalogue.match_operation``)
and the few :data:`ALSO` names whose statements are about the operation without naming its
path. A test holding one of them fails under it; any other test that met the 5xx on the way
is blocked (``reporting/causes.py``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from types import MappingProxyType

from conformance.contract.interface_catalogue import Operation, match_operation
from conformance.contract.requirements import default_catalogue

__all__ = ["ALSO", "CHARGED", "charged_requirement", "operation_owners"]

# operation -> the requirement its 5xx is charged to
CHARGED: Mapping[str, str] = MappingProxyType({
    "POST /customers": "CUSTOMER-CREATE",
    "GET /customers/{customerId}": "CUSTOMER-GET",
    "PATCH /customers/{customerId}": "CUSTOMER-PATCH",
    "POST /customers/{customerId}/kyc-link": "KYC-LINK-RESPONSE",
    # no endpoints requirement: the transitions one that states the send, and the confirm
    "POST /customers/{customerId}/verify-email": "CONTACT-VERIFY-SEND",
    "POST /customers/{customerId}/verify-phone": "CONTACT-VERIFY-SEND",
    "POST /customers/{customerId}/verify-email/confirm": "CONTACT-VERIFICATION-CONFIRM",
    "POST /customers/{customerId}/verify-phone/confirm": "CONTACT-VERIFICATION-CONFIRM",
    "POST /beneficial-owners": "BENEFICIAL-OWNER-CREATE",
    "POST /documents": "DOCUMENT-UPLOAD",
    "POST /verifications": "VERIFICATION-SUBMIT",
    "GET /verifications": "VERIFICATION-GET-BY-CUSTOMER",
    "GET /customers/agreements": "AGREEMENTS-LIST",
    "GET /customers/end-user-terms": "VERSION-DEPRECATED-END-USER-TERMS-GET",
    "POST /customers/external-accounts": "EXTERNAL-ACCOUNT-CREATE",
    # ownership verification (exact paths not shown): its outcome, and the synchronous verify
    "POST /customers/external-accounts/{id}/challenge": "EXTERNAL-ACCOUNT-VERIFIED-ACTIVE",
    "POST /customers/external-accounts/{id}/verify": "EXTERNAL-ACCOUNT-VERIFY-SYNCHRONOUS",
    "GET /customers/internal-accounts": "INTERNAL-ACCOUNT-LIST",
    "POST /internal-accounts": "RULE-BASED-CREATE-201",
    "POST /internal-accounts/{id}/export": "WALLET-EXPORT",
    "PATCH /internal-accounts/{id}": "WALLET-PRIVACY-UPDATE",
    "POST /quotes": "QUOTE-CREATE-201",
    "POST /quotes/{quoteId}/execute": "QUOTE-EXECUTE-PROCESSING",  # §3's execute
    "POST /quotes/{quoteId}/authorize": "QUOTE-AUTHORIZE-RETURNS-QUOTE",
    "GET /transactions": "TRANSACTIONS-LIST-FILTERS",
    "POST /transactions/{transactionId}/approve": "TRANSACTION-APPROVE-AGENT",
    "POST /transfer-in": "VERSION-DEPRECATED-TRANSFER-ENDPOINTS",
    "POST /transfer-out": "VERSION-DEPRECATED-TRANSFER-ENDPOINTS",
    "GET /config": "CONFIG-GET-RESOURCE",
    "PATCH /config": "CONFIG-PATCH-FIELDS",
    "POST /cards/{id}/tokenize": "CARD-TOKENIZE",
    "POST /sandbox/cards/{id}/simulate/return_reversal": "CARD-SIMULATE-RETURN-REVERSAL",
    "POST /agents/device-codes/{code}/redeem": "AGENT-DEVICE-CODE-REDEEM",
    "POST /sca/login/complete": "SCA-LOGIN-COMPLETE",
    "POST /auth/credentials": "WALLET-CREDENTIAL-REGISTER",
    "POST /auth/credentials/{id}/challenge": "WALLET-CHALLENGE-OTP",
    "POST /auth/credentials/{id}/verify": "WALLET-VERIFY-OTP-202",
    "DELETE /auth/credentials/{id}": "WALLET-CREDENTIAL-DELETE",
    "DELETE /auth/sessions/{id}": "WALLET-SESSION-DELETE",
    "POST /sandbox/send": "SANDBOX-SEND",
    "POST /sandbox/internal-accounts/{accountId}/fund": "SANDBOX-FUND-INTERNAL-ACCOUNT",
    "POST /sandbox/webhooks/test": "WEBHOOK-TEST-TRIGGER",
})  # fmt: skip

# operation -> requirements about it whose statements name it without its backticked path
ALSO: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "POST /customers/{customerId}/verify-email/confirm": ("CONTACT-VERIFICATION-WRONG-CODE",),
    "POST /customers/{customerId}/verify-phone/confirm": ("CONTACT-VERIFICATION-WRONG-CODE",),
    "POST /customers/external-accounts/{id}/challenge": ("EXTERNAL-ACCOUNT-FAILED-UNVERIFIED",),
    "POST /customers/external-accounts/{id}/verify": (
        "EXTERNAL-ACCOUNT-VERIFIED-ACTIVE", "EXTERNAL-ACCOUNT-FAILED-UNVERIFIED",
    ),
    # the OTP verify: what it accepts and refuses (a malformed bundle is refused, not a 5xx)
    "POST /auth/credentials/{id}/verify": (
        "WALLET-OTP-HPKE-BUNDLE", "WALLET-OTP-COMPRESSED-KEY", "WALLET-OTP-SIGNED-RETRY",
        "WALLET-SANDBOX-OTP-CODE", "WALLET-SANDBOX-OTP-WRONG-CODE", "WALLET-SANDBOX-REAL-HPKE",
    ),
    "POST /quotes/{quoteId}/execute": (
        "QUOTE-EXECUTE-DEBITS-SOURCE", "QUOTE-EXECUTE-SAME-TRANSACTION-ID",
        "QUOTE-EXECUTE-SCA-CHALLENGE", "QUOTE-EXECUTE-SCA-409",
    ),
})  # fmt: skip

# "`POST /quotes`", "`GET /verifications?customerId=<id>`": an operation a statement names
_NAMED = re.compile(r"`(GET|POST|PATCH|PUT|DELETE) (/[^`\s]*)`")


@functools.cache
def _named_by_statements() -> Mapping[str, tuple[str, ...]]:
    """Operation name -> the requirements whose statements name it, in catalogue order."""
    named: dict[str, list[str]] = {}
    for requirement in default_catalogue():
        for method, path in _NAMED.findall(requirement.statement):
            operation = match_operation(method, path)
            if operation is not None and requirement.id not in named.get(operation.name, ()):
                named.setdefault(operation.name, []).append(requirement.id)
    return MappingProxyType({name: tuple(ids) for name, ids in named.items()})


def charged_requirement(operation: Operation) -> str:
    """The requirement a 5xx answer to ``operation`` is charged to."""
    return CHARGED[operation.name]


def operation_owners(method: str, url: str) -> tuple[Operation, tuple[str, ...]] | None:
    """The §4 operation a request falls on and its owners (the charged one first), or None
    for a request §4 names no operation for."""
    operation = match_operation(method, url)
    if operation is None:
        return None
    charged = charged_requirement(operation)
    rest = (*ALSO.get(operation.name, ()), *_named_by_statements().get(operation.name, ()))
    return operation, (charged, *dict.fromkeys(r for r in rest if r != charged))
