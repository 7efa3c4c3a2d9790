"""Every table of the sandbox, in creation order (a table after the ones it references).

A module that owns tables exports ``SCHEMA``; add it here to have it created at start-up.
"""

from __future__ import annotations

from reference.accounts import rule_based_tables
from reference.agents import tables as agent_tables
from reference.cards import tables as card_tables
from reference.configuration import store as config_store
from reference.customers import tables as customer_tables
from reference.invitations import tables as invitation_tables
from reference.kernel import platforms
from reference.payments import limits_tables
from reference.payments import tables as money_tables
from reference.sca import tables as sca_tables
from reference.wallet import tables as wallet_tables
from reference.webhooks import outbox, signing

STATEMENTS: tuple[str, ...] = (
    *platforms.SCHEMA,
    *signing.SCHEMA,
    *config_store.SCHEMA,
    *outbox.SCHEMA,
    *customer_tables.SCHEMA,
    *money_tables.SCHEMA,
    *sca_tables.SCHEMA,
    *limits_tables.SCHEMA,
    *rule_based_tables.SCHEMA,
    *wallet_tables.SCHEMA,
    *card_tables.SCHEMA,
    *agent_tables.SCHEMA,
    *invitation_tables.SCHEMA,
)
