"""Fault modes of executing, refunding and rendering money records (reference/payments/)."""

from __future__ import annotations

from reference.faults.legacy import legacy

legacy(
    "execute-double-debit",
    breaks="a second execute of an executed quote answers 200 and debits the source again",
    clause="§3 Quote and transaction: execute moves a PENDING quote; DESIGN: debit once",
    part="errors",
    caught_by=("test_a_second_execute_debits_nothing",),
)
legacy(
    "execute-after-expiry",
    breaks="a quote past expiresAt still executes",
    clause="§3 Quote and transaction: before expiresAt; §7 Errors: QUOTE_EXPIRED",
    part="errors",
    caught_by=("test_an_expired_quote_is_not_executed",),
)
legacy(
    "refund-event-missing",
    breaks="a failed payout is refunded but no OUTGOING_PAYMENT.REFUND_* event is sent",
    clause="§3 Quote and transaction, §6 Events: refund events",
    part="webhooks",
    caught_by=(
        "test_payment_events_follow_the_state_machine",
        "test_payment_events_are_envelopes_whose_data_is_the_transaction",
    ),
)
legacy(
    "money-leak-on-refund",
    breaks="the automatic refund credits back 1 unit less than was debited",
    clause="§2 Transaction: a debited amount is refunded automatically",
    part="transitions",
    caught_by=(
        "test_money_is_conserved_through_funding_payments_and_refunds",
        "test_a_failed_payout_fails_and_its_debit_is_refunded",
    ),
)
legacy(
    "execute-not-atomic",
    breaks="execute checks the quote's status and debits in two DB transactions, so concurrent executes can each debit",
    clause="§3 Quote and transaction; DESIGN: debit once",
    part="transitions",
    caught_by=("test_simultaneous_executes_of_one_quote_debit_the_source_once",),
)
legacy(
    "rate-refusal-debits",
    breaks="an execute whose quoted rate is refused answers QUOTE_RATE_UNAVAILABLE but debits the source",
    clause="§3 Quote and transaction: nothing is exchanged",
    part="transitions",
    caught_by=("test_a_refused_rate_exchanges_nothing_and_a_new_quote_recovers",),
)
legacy(
    "quote-amount-as-string",
    breaks="quotes render totalSendingAmount as a string",
    clause="§2 Quote: integers",
    part="resources",
    caught_by=("test_a_quote_describes_the_request_it_answers",),
)
legacy(
    "transaction-id-unprefixed",
    breaks="transactions render id without the Transaction: prefix",
    clause="§2 Transaction: id",
    part="resources",
    caught_by=(
        "test_a_transaction_names_its_customer_quote_and_kind",
        "test_a_transaction_carries_the_parties_and_amounts_of_its_quote",
    ),
)
legacy(
    "internal-account-balance-missing",
    breaks="internal accounts omit the available balance",
    clause="§2 InternalAccount: available and total balance",
    part="resources",
    caught_by=("test_the_available_balance_never_exceeds_the_total",),
)
legacy(
    "external-account-bad-status",
    breaks="external accounts render status VERIFIED_ACTIVE, outside the three values",
    clause="§2 ExternalAccount: status",
    part="resources",
    caught_by=("test_an_external_account_carries_its_owner_currency_and_account_info",),
)
legacy(
    "sca-non-sca-authorize-executes",
    breaks="quote authorization for a customer outside SCA releases a PENDING quote (200); on an executed quote it still answers 409",
    clause="§5 Authentication: SCA endpoints return 409 for other customers",
    part="errors",
    caught_by=("test_quote_authorization_answers_409_for_customers_outside_sca",),
)
legacy(
    "jit-execute-starts-transfer",
    breaks="execute on a just-in-time quote answers 200 PROCESSING and starts its transaction (PROCESSING, event), the quote read back still PENDING",
    clause="§4 Quotes rule 2: never executed with the execute endpoint",
    part="transitions",
    caught_by=("test_the_execute_endpoint_does_not_execute_a_just_in_time_quote",),
)
legacy(
    "jit-instructions-missing-non-usd",
    breaks="a just-in-time quote funded in a currency other than USD is answered with an empty paymentInstructions",
    clause="§2 Quote: present for just-in-time funding",
    part="resources",
    caught_by=("test_just_in_time_quotes_in_every_supported_currency_carry_instructions",),
)
legacy(
    "completed-failure-reason",
    breaks="a transaction that completes keeps a failureReason (PAYOUT_RETURNED) in every read path",
    clause="§2 Transaction: failureReason is set with FAILED",
    part="resources",
    caught_by=("test_a_transaction_names_its_customer_quote_and_kind",),
)
legacy(
    "card-status-filter-card-statuses",
    breaks="GET /transactions with type=CARD and a card status (SETTLED, DECLINED, ...) answers 200 with a list; payment statuses still answer 400",
    clause="§4, §7: status combined with type=CARD returns 400",
    part="errors",
    caught_by=("test_a_status_filter_with_type_card_answers_400",),
)
legacy(
    "internal-account-card-capabilities-missing",
    breaks="internal accounts listed by GET /customers/internal-accounts carry no cardCapabilities, even one funding a card",
    clause="§2 InternalAccount: card capabilities",
    part="resources",
    caught_by=("test_an_account_funding_a_card_states_its_card_capabilities",),
)
legacy(
    "wallet-privacy-flag-everywhere",
    breaks="privateEnabled appears on every internal account in the list",
    clause="§2 InternalAccount: only EMBEDDED_WALLET",
    part="resources",
    caught_by=("test_the_privacy_flag_appears_only_on_embedded_wallet_accounts",),
)
