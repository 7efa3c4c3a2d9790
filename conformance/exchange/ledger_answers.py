"""The client's answers fed to the cross-check ledger (``ledger.py``), and the failure of
the test whose answer disagrees with what the target stated before.

Only validated 2xx JSON answers made with the profile's Basic credentials count: an answer
the schema refused has failed already, and one made with other (or no) credentials is not
a platform's statement of its resources.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from conformance.contract import endpoint_schemas
from conformance.contract.answer_owners import owners_of
from conformance.contract.failures import ConformanceFailure, shorten
from conformance.exchange.answer import ApiResponse
from conformance.exchange.answer_checks import CheckContext, answer_check
from conformance.exchange.evidence import Exchange
from conformance.exchange.ledger import Disagreement, current_test, now_sighting
from conformance.ground.profile import Credentials

if TYPE_CHECKING:  # the client feeds the ledger: it is read here, never built
    from conformance.exchange.client import TargetClient

__all__ = [
    "agrees_with_earlier_answers",
    "charged_disagreement",
    "earlier_evidence",
    "record_answer",
]


@answer_check("ledger", order=30)
def agrees_with_earlier_answers(answer: ApiResponse, context: CheckContext) -> None:
    """What the target states twice must agree (the answer's own statement is recorded)."""
    __tracebackhide__ = True
    record_answer(context.client, answer, context.credentials, context.sent)


def record_answer(client: TargetClient, response: ApiResponse, auth: object, sent: float) -> None:
    """Feed a validated answer of ``client`` (made with ``auth``, sent at monotonic ``sent``)
    to its run's ledger; fail the test with the first disagreement it finds, the earlier
    statement added to the test's evidence beside the answer's own exchange."""
    __tracebackhide__ = True
    if (
        not isinstance(auth, Credentials)
        or not 200 <= response.status < 300
        or not response.content
    ):
        return
    body = response.json
    ref = endpoint_schemas.response_schema(response.method, response.path, response.status, body)
    ledger = client.state.ledger
    if ref is None or not ledger.enabled:
        return
    items = (endpoint_schemas.list_items(body) or []) if ref.is_list else [body]
    seen = now_sighting(response.method, response.path, response.status, current_test(), sent=sent)
    scope = (client.base_url, auth.client_id)
    found = [d for item in items for d in ledger.observe(scope, item, seen)]
    if found:
        client.log.append(earlier_evidence(found[0]))
        raise charged_disagreement(found[0], ref.name, response.exchange)


def charged_disagreement(
    disagreement: Disagreement, schema: str, exchange: Exchange
) -> ConformanceFailure:
    """The disagreement's failure, charged to the requirement its rule states (a link's,
    ``contract/stable_fields.py``), whichever test read it; a test holding one of the
    answered record's requirements that name the field (``contract/answer_owners.py``)
    fails on it too, any other is blocked; one steady sentence (no ids, no values) is its
    cause. A rule that states none (a state's move, a field that changed: which of §3's or
    §2's requirements a test is about differs from test to test) stays the reading test's
    own failure."""
    failure = disagreement.failure(exchange)
    if disagreement.requirement is None:
        return failure
    location = disagreement.field.replace(" / ", ".").split(".")
    failure.charged_to = disagreement.requirement
    failure.owners = tuple(r for r in owners_of(schema, location) if r != failure.charged_to)
    failure.cause = disagreement.statement
    return failure


def earlier_evidence(disagreement: Disagreement) -> Exchange:
    """The earlier statement as an exchange for the report: the ledger keeps only the
    compared value, so its body is that value."""
    earlier = disagreement.before_at
    return Exchange(
        method=earlier.method,
        url=earlier.target,
        request_headers={},
        request_body="",
        curl=f"# the earlier statement: {earlier.describe()}",
        status=earlier.status,
        response_body=f"(kept by the cross-check ledger) {disagreement.field}: "
        f"{shorten(disagreement.before, 500)}",
    )
