"""Agent-initiated transactions and their approval (§4 Quotes and transactions:
``POST /transactions/{transactionId}/approve`` approves an agent-initiated transaction; the
name of the state awaiting approval is not shown).

An agent's execute of a ``PENDING`` quote records the quote's transaction as awaiting
approval and answers ``202`` with the quote, unchanged (the transaction stays ``PENDING``).
The platform's approve carries out the execute as ``POST /quotes/{id}/execute`` would
(debit, ``PROCESSING``, settlement, events) and answers ``200`` with the Transaction. A
transaction that is not awaiting approval → ``409 TRANSACTION_NOT_AWAITING_APPROVAL``;
unknown → ``404``. Agents cannot approve (their policy has no such operation).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.responses import JSONResponse, Response

from reference.kernel.clock import iso, utc_now
from reference.kernel.errors import ApiError
from reference.kernel.routing import ApiRequest, Operation, api_route
from reference.kernel.seams import seam
from reference.kernel.services import Services
from reference.payments import execution as payments
from reference.payments import quote_store
from reference.payments import transaction_store as txns

if TYPE_CHECKING:
    from reference.agents.store import Agent

AWAITING = "AWAITING_APPROVAL"
APPROVED = "APPROVED"

APPROVED_QUOTE = seam(
    "agents.approved_quote",
    "the id of the quote an approval carries out the execute of, None to execute nothing"
    " (context: transaction_id, the approved transaction)",
)


def hold(services: Services, agent: Agent, quote_id: str) -> Response | None:
    """Record the agent's execute of a ``PENDING`` quote; None lets the execute endpoint
    answer (a quote in any other state gets its usual error)."""
    db = services.db
    with db.transaction():
        quote = quote_store.load(db, agent.platform_id, quote_id)
        if quote is None or quote.status != "PENDING" or quote.past_expiry():
            return None
        db.execute(
            """INSERT OR IGNORE INTO agent_approvals (transaction_id, platform_id, quote_id,
               agent_id, status, created_at) VALUES (?, ?, ?, ?, ?, ?)""",
            (quote.transaction_id, agent.platform_id, quote.id, agent.id, AWAITING,
             iso(utc_now())),
        )  # fmt: skip
    return JSONResponse(quote_store.render(quote), status_code=202)


def approve(request: ApiRequest) -> Response:
    """``POST /transactions/{transactionId}/approve`` → ``200`` the Transaction."""
    services, platform_id = request.services, request.platform.id
    transaction_id = request.path_params["transactionId"]
    db = services.db
    with db.transaction():
        row = db.fetchone(
            "SELECT * FROM agent_approvals WHERE transaction_id = ? AND platform_id = ?",
            (transaction_id, platform_id),
        )
        if row is None or row["status"] != AWAITING:
            if txns.load(db, platform_id, transaction_id) is None:
                raise ApiError(404, "NOT_FOUND", f"no transaction {transaction_id}")
            raise ApiError(
                409,
                "TRANSACTION_NOT_AWAITING_APPROVAL",
                f"{transaction_id} is not an agent-initiated transaction awaiting approval",
            )
        quote_id: str | None = row["quote_id"]
        quote_id = services.settings.seams.apply(
            APPROVED_QUOTE, quote_id, transaction_id=transaction_id
        )
        if quote_id is not None:
            payments.execute(services, platform_id, quote_id)  # nested: one commit
        db.execute(
            "UPDATE agent_approvals SET status = ? WHERE transaction_id = ?",
            (APPROVED, transaction_id),
        )
        transaction = txns.load(db, platform_id, transaction_id)
    assert transaction is not None
    return JSONResponse(txns.render(transaction))


ROUTES = [
    api_route("/transactions/{transactionId}/approve", Operation("POST", approve)),
]
