"""Every table of the sandbox, in creation order (a table after the ones it references).

A module that owns tables exports ``SCHEMA``; add it here to have it created at start-up.
"""

from __future__ import annotations

from reference import (
    agent_tables,
    card_tables,
    config_store,
    customer_tables,
    invitation_tables,
    limits_tables,
    money_tables,
    outbox,
    platforms,
    rule_based_tables,
    sca_tables,
    signing,
    wallet_tables,
)

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
