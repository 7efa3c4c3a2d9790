"""The first check every validated answer gets: a §4 operation never answers 5xx.

The clause: the interface (§4 Endpoints, §7 Errors) states what each operation answers; a
5xx is never among them, so a 5xx answer breaks the statement of the operation the request
was sent to. It is charged there once (``contract/operation_owners.py``): a test holding one
of the operation's requirements fails under it, and every other test that met the 5xx on the
way is blocked (``reporting/causes.py``), so a target answering 500 now and then is one cause
per operation, not a failure per test. The check runs before decoding and the schema, and
after the transport stack's ``Retry-After`` resends (``rate_limit.py``): what is left is the
answer. Judged only where the interface is not open: a request §4 names no operation for
(another method, a path it does not show) is the asking test's to judge, and a 5xx carrying a
code §7 lists without a status (``QUOTE_EXPIRED``, ...) is one reading of that code. Requests
sent with ``validate=False`` (the preflight, the sink's registration) are not checked.
"""

from __future__ import annotations

from typing import Any

from conformance.contract.error_codes import carries_code
from conformance.contract.failures import ConformanceFailure
from conformance.contract.operation_owners import operation_owners
from conformance.exchange.answer import ApiResponse, Text
from conformance.exchange.answer_checks import CheckContext, answer_check
from conformance.exchange.decoding import DecodeProblem, decode_json

__all__ = ["CODES_WITHOUT_STATUS", "never_a_server_error"]

# §7 names these codes and not their status: any error status, a 5xx too, may carry them
CODES_WITHOUT_STATUS = ("QUOTE_EXPIRED", "QUOTE_RATE_UNAVAILABLE", "END_USER_TERMS_NOT_ACCEPTED")


@answer_check("server-error", order=0, on_body=False)  # the status: never held
def never_a_server_error(answer: ApiResponse, context: CheckContext) -> None:
    """Fail a 5xx answer to a §4 operation, charged to the operation's requirement."""
    __tracebackhide__ = True
    if answer.status < 500 or not answer.path.startswith("/"):
        return
    owned = operation_owners(answer.method, answer.path)
    if owned is None:
        return
    body = _body(answer.content)
    if any(carries_code(body, code) for code in CODES_WITHOUT_STATUS):
        return
    operation, owners = owned
    failure = ConformanceFailure(
        operation.section,
        f"{operation.name} answered {answer.status}; §4 states what the operation answers "
        "and §7 its errors, and no 5xx is among them",
        observed=Text(f"{answer.status} {answer.content[:200]!r}"),
        hint="a 5xx is the server failing the request: its logs for this request say why "
        "(the curl line reproduces it)",
        exchange=answer.exchange,
    )
    failure.charged_to, failure.owners = owners[0], owners[1:]
    failure.cause = f"{operation.name} answered {answer.status}"
    raise failure


def _body(content: bytes) -> Any:
    """The decoded body, or None for one that is not JSON (the decoding check's to judge)."""
    try:
        return decode_json(content) if content else None
    except DecodeProblem:
        return None
