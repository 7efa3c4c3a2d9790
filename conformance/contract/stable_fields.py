"""What may change between two statements of one resource, as data (§2, §3).

A target states one resource in many places: the answer that created it, a later GET, list
items, a PATCH answer, webhook ``data`` (§6: "``data`` for payment events is the Transaction
(part 2)"). The exchange floor's ledger (``exchange/ledger.py``) compares each new statement of
an id with what the target said before, by these rules, per resource type (the prefix of
its ``<Type>:<uuid>`` id):

- :class:`Fixed`: a field the resource states once and keeps (ids, amounts a quote fixes,
  currencies, creation timestamps): every statement that carries it gives the same value.
  A field absent from one statement is not compared (views may omit it).
- :class:`Moves`: a status that moves only along §3's transitions. A state whose exits the
  interface does not show (``HOLD``, ``FROZEN``, an unknown value) constrains nothing.
- :class:`Kept`: entries of a list that a later statement still holds (consents per type).
- :class:`Link`: values about one thing stated by two resources (a quote and the
  transaction it created).
- :class:`Within`: two timestamps of one statement that a limit holds together (a quote's
  ``expiresAt`` at most 15 minutes after its ``createdAt``, §8), in every statement of it:
  the quote a test reads for its lifetime and the one ``immediatelyExecute`` returned alike.

Everything else is free to differ: a field the interface leaves "not shown", a moving value
(a balance between two requests), a field that appears later (``settledAt``, ``refund``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from conformance.contract import clauses, transitions
from conformance.contract.transitions import Transitions

__all__ = [
    "CURRENCY_CLAUSE",
    "EVENT_CLAUSE",
    "LINKS",
    "RESOURCE_EVENTS",
    "RULES",
    "Fixed",
    "Kept",
    "Link",
    "Moves",
    "Rules",
    "Within",
]

# "each currency object carries decimals": the places of the currency's smallest unit, one
# number per currency wherever the currency appears
CURRENCY_CLAUSE = clauses.CONVENTIONS
# §6: the data of these events is the Transaction; other payloads are not shown
RESOURCE_EVENTS = ("OUTGOING_PAYMENT.", "INCOMING_PAYMENT.")
EVENT_CLAUSE = clauses.EVENTS


@dataclass(frozen=True, slots=True)
class Fixed:
    """A field (dotted path) that never changes once stated; ``instant`` compares it as a
    timestamp (one instant written two ways is one value)."""

    path: str
    clause: str
    why: str
    instant: bool = False


@dataclass(frozen=True, slots=True)
class Moves:
    """A status field of the values ``states`` (§2): ``after[state]`` holds every state a
    later statement may show after ``state`` (§3's transitions, walked transitively); a
    state not in ``after``, and a value not in ``states``, constrain nothing (their exits,
    or where they sit, are not shown)."""

    path: str
    clause: str
    states: frozenset[str]
    after: Mapping[str, frozenset[str]]

    def allows(self, before: object, later: object) -> bool:
        """Whether a statement of ``later`` may follow one of ``before``."""
        if before == later or not isinstance(before, str) or later not in self.states:
            return True
        reachable = self.after.get(before)
        return reachable is None or later in reachable


@dataclass(frozen=True, slots=True)
class Kept:
    """A list of entries keyed by ``key``: a key once stated stays in later statements, and
    its ``stamp`` (a timestamp) never goes back."""

    path: str
    key: str
    stamp: str
    clause: str
    why: str


@dataclass(frozen=True, slots=True)
class Within:
    """Timestamp ``end`` is after ``start`` by at most ``longest_s`` seconds in one statement."""

    start: str
    end: str
    longest_s: float
    clause: str
    why: str


@dataclass(frozen=True, slots=True)
class Rules:
    """The rules of one resource type."""

    fixed: tuple[Fixed, ...] = ()
    moves: tuple[Moves, ...] = ()
    kept: tuple[Kept, ...] = ()
    within: tuple[Within, ...] = ()


@dataclass(frozen=True, slots=True)
class Link:
    """Resource ``kind`` names resource ``other`` in ``via``; ``other`` names it back in
    ``back``; each pair (``kind``'s field, ``other``'s field) states one value twice.
    Every field named is a :class:`Fixed` field of its type."""

    kind: str
    via: str
    other: str
    back: str
    pairs: tuple[tuple[str, str], ...]
    clause: str
    why: str
    requirement: str | None = None  # the one a disagreement is charged to, where one states it


def _moves(path: str, machine: Transitions) -> Moves:
    """``path`` takes the states of ``machine``; a state whose exits §3 shows binds where a
    later statement may be (:class:`Moves`)."""
    return Moves(path, machine.clause, frozenset(machine.states), machine.bound_exits())


_QUOTE_FIXES = "a quote fixes amounts, fees and the exchange rate for its life (§1, §4 rule 4)"
_CARRIES = "the transaction carries the money its quote fixed (§1)"
_CREATED = "a creation timestamp states one instant"
_SAME = "one resource keeps what it is"


def _fixed(clause: str, why: str, *paths: str) -> tuple[Fixed, ...]:
    return tuple(Fixed(p, clause, why, instant=p.endswith("At")) for p in paths)


_AMOUNTS = tuple(
    f"{side}.{leaf}"
    for side in ("sentAmount", "receivedAmount")
    for leaf in ("amount", "currency.code", "currency.decimals")
)
_ENDS = (
    "source.sourceType",
    "source.accountId",
    "destination.destinationType",
    "destination.accountId",
)

TRANSACTION = Rules(
    fixed=(
        *_fixed(clauses.TRANSACTION, _CARRIES, *_AMOUNTS, "exchangeRate", "quoteId"),
        *_fixed(clauses.TRANSACTION, _SAME, "type", "direction", "customerId", *_ENDS),
        *_fixed(clauses.TRANSACTION, _CREATED, "createdAt"),
    ),
    moves=(_moves("status", transitions.TRANSACTION),),
)

QUOTE = Rules(
    fixed=(
        *_fixed(
            clauses.QUOTE,
            _QUOTE_FIXES,
            "totalSendingAmount",
            "totalReceivingAmount",
            "exchangeRate",
            "feesIncluded",
            "platformFeesIncluded",
            *(
                f"{side}.{leaf}"
                for side in ("sendingCurrency", "receivingCurrency")
                for leaf in ("code", "decimals")
            ),
        ),
        *_fixed(clauses.QUOTE, _SAME, *_ENDS, "source.customerId", "source.currency"),
        *_fixed(
            clauses.QUOTE_AND_TRANSACTION_STATES,
            "execute keeps the transactionId returned at creation (§3)",
            "transactionId",
        ),
        *_fixed(clauses.QUOTE, _CREATED, "createdAt"),
    ),
    within=(
        # every quote, however created: one executed by immediatelyExecute still states
        # when it would have expired, and that lifetime is §8's like any other
        Within(
            "createdAt",
            "expiresAt",
            15 * 60,
            clauses.LIMITS,
            "a quote lives up to 15 minutes, depending on payment type and corridor",
        ),
    ),
    moves=(_moves("status", transitions.QUOTE),),
)

CUSTOMER = Rules(
    moves=tuple(_moves(path, transitions.VERIFICATION) for path in ("kycStatus", "kybStatus")),
    kept=(
        Kept(
            "agreementConsents",
            "type",
            "acceptedAt",
            clauses.CUSTOMER,
            "responses hold the latest acceptance per type, and recording one leaves those "
            "of other types untouched (§2 Customer, §4 Recording consent)",
        ),
    ),
)

INTERNAL_ACCOUNT = Rules(
    fixed=(
        *_fixed(clauses.INTERNAL_ACCOUNT, _SAME, "type", "currency", "customerId"),
        *_fixed(clauses.INTERNAL_ACCOUNT, _CREATED, "createdAt"),
    ),
    moves=(_moves("status", transitions.INTERNAL_ACCOUNT),),
)

EXTERNAL_ACCOUNT = Rules(
    fixed=_fixed(
        clauses.EXTERNAL_ACCOUNT, _SAME, "customerId", "currency", "accountInfo.accountType"
    ),
    moves=(_moves("status", transitions.EXTERNAL_ACCOUNT),),
)

RULES: Mapping[str, Rules] = MappingProxyType(
    {
        "Transaction": TRANSACTION,
        "Quote": QUOTE,
        "Customer": CUSTOMER,
        "InternalAccount": INTERNAL_ACCOUNT,
        "ExternalAccount": EXTERNAL_ACCOUNT,
        "Verification": Rules(
            fixed=(
                *_fixed(clauses.VERIFICATION, _SAME, "customerId"),
                *_fixed(clauses.VERIFICATION, _CREATED, "createdAt"),
            )
        ),
        "BeneficialOwner": Rules(fixed=_fixed(clauses.BENEFICIAL_OWNER, _SAME, "customerId")),
        "PlatformConfig": Rules(fixed=_fixed(clauses.PLATFORM_CONFIG, _CREATED, "createdAt")),
    }
)

LINKS = (
    Link(
        kind="Transaction",
        via="quoteId",
        other="Quote",
        back="transactionId",
        pairs=(
            ("sentAmount.amount", "totalSendingAmount"),
            ("sentAmount.currency.code", "sendingCurrency.code"),
            ("receivedAmount.amount", "totalReceivingAmount"),
            ("receivedAmount.currency.code", "receivingCurrency.code"),
            ("exchangeRate", "exchangeRate"),
        ),
        clause=clauses.TRANSACTION,
        why="a quote fixes the amounts and rate and creates the transaction that carries "
        "the money (§1); the transaction's sentAmount and receivedAmount are its quote's "
        "totals",
        requirement="FEES-FIXED-FOR-QUOTE-LIFE",  # executing it moves the amounts it stated
    ),
    Link(
        kind="Transaction",
        via="quoteId",
        other="Quote",
        back="transactionId",
        pairs=tuple((end, end) for end in _ENDS),
        clause=clauses.TRANSACTION,
        why="source, destination: as on the quote (§2)",
        requirement="TRANSACTION-SOURCE-DESTINATION",
    ),
)
