"""Fault modes of quotes, pricing, limits, funding and transfers (reference/payments/)."""

from __future__ import annotations

from reference.faults.legacy import legacy

legacy(
    "fee-on-receiving-side",
    breaks="the variable fee is computed on the amount received instead of the amount sent: send = net * (1 + f)",
    clause="§4 Quotes and transactions, rule 3",
    part="endpoints",
    caught_by=("test_generated_quotes_follow_the_fee_and_rate_arithmetic",),
)
legacy(
    "same-currency-rate-not-one",
    breaks="same-currency quotes report exchangeRate 1.01 and convert with it",
    clause="§2 Quote, §4 rule 1: exchangeRate equals 1",
    part="endpoints",
    caught_by=("test_generated_quotes_follow_the_fee_and_rate_arithmetic",),
)
legacy(
    "incoming-refund-event-missing",
    breaks="a returned incoming deposit is refunded without INCOMING_PAYMENT.REFUND_* events",
    clause="§3 Quote and transaction, §6 Events",
    part="transitions",
    caught_by=("test_a_returned_incoming_deposit_is_refunded_with_its_events",),
)
legacy(
    "slow-payment-never-settles",
    breaks="a payout to an identifier ending in 003 stays PROCESSING for ever",
    clause="§4 Sandbox behaviours: only timeout scenarios, 005, do not settle",
    part="transitions",
    caught_by=("test_a_slow_payment_to_a_003_identifier_still_settles",),
)
legacy(
    "ownership-pending-unusable",
    breaks="an external account PENDING_OWNERSHIP_VERIFICATION is refused as a destination at any amount",
    clause="§3 External account: usable below regulatory thresholds",
    part="transitions",
    caught_by=("test_an_account_pending_ownership_verification_receives_a_small_payout",),
)
legacy(
    "size-limit-unenforced",
    breaks="quotes above the transaction size limit are accepted and executed",
    clause="§8 Limits, §7 Errors: 400 TRANSACTION_SIZE_LIMIT_EXCEEDED",
    part="limits",
    caught_by=("test_a_transaction_above_the_size_limit_is_refused_with_400",),
)
legacy(
    "daily-limit-unenforced",
    breaks="a customer's volume past the daily limit is quoted and executed",
    clause="§8 Limits, §7 Errors: 429 DAILY_VOLUME_LIMIT_EXCEEDED",
    part="limits",
    caught_by=("test_volume_above_the_daily_limit_is_refused_with_429",),
)
legacy(
    "pending-reason-missing",
    breaks="a payout held for compliance review carries no pendingReason",
    clause="§2 Transaction: pendingReason states why it is held",
    part="resources",
    caught_by=("test_a_transaction_held_for_compliance_review_states_why",),
)
legacy(
    "sandbox-send-any-currency",
    breaks="POST /sandbox/send accepts a currencyCode other than the funding source's",
    clause="§4 sandbox: currencyCode must equal the funding-source currency",
    part="endpoints",
    caught_by=("test_a_currency_other_than_the_funding_source_s_is_refused",),
)
legacy(
    "jit-reference-ignored",
    breaks="a deposit into a just-in-time quote's instructions with a wrong reference executes it",
    clause="§4 Quotes rule 2: the exact reference triggers execution",
    part="transitions",
    caught_by=("test_only_a_payment_with_the_exact_reference_executes_the_quote",),
)
legacy(
    "onchain-hash-missing",
    breaks="a settled wallet payout carries no onChainTransaction nor transactionHash",
    clause="§2 Transaction: onChainTransaction once an on-chain transfer settles",
    part="resources",
    caught_by=("test_a_settled_wallet_payout_carries_its_on_chain_transaction",),
)
legacy(
    "uma-scenario-ignored",
    breaks="scenario digits at the end of a UMA address's username part are ignored",
    clause="§4 Sandbox behaviours: digits at the end of the username part",
    part="transitions",
    caught_by=("test_digits_at_the_end_of_the_username_part_select_the_scenario",),
)
legacy(
    "pull-fee-on-receiving-side",
    breaks="quotes from a pulled external source compute the variable fee on the amount converted instead of the amount sent",
    clause="§4 Quotes and transactions, rule 3",
    part="endpoints",
    caught_by=("test_generated_quotes_follow_the_fee_and_rate_arithmetic",),
)
legacy(
    "uma-incoming-no-transaction",
    breaks="an incoming UMA payment credits the account but creates no transaction",
    clause="§4 sandbox: an incoming UMA payment creates an incoming transaction",
    part="transitions",
    caught_by=("test_an_incoming_uma_payment_creates_an_incoming_transaction",),
)
legacy(
    "uma-limits-ignored",
    breaks="a UMA quote above its currency's maxAmount is accepted",
    clause="§8 Limits: UMA amounts within supportedCurrencies minAmount/maxAmount",
    part="limits",
    caught_by=("test_uma_amounts_outside_the_currency_bounds_are_refused",),
)
legacy(
    "transfer-out-gone",
    breaks="the deprecated POST /transfer-out answers 404",
    clause="§9.2: keeps working unchanged",
    part="versioning",
    caught_by=("test_transfer_out_and_transfer_in_still_move_money",),
)
legacy(
    "card-id-filter-prefix-only",
    breaks="GET /transactions?cardId= with the bare uuid lists nothing",
    clause="§4 Quotes and transactions: a Card: id or the uuid",
    part="endpoints",
    caught_by=("test_card_transactions_are_listed_by_card_id_or_bare_uuid",),
)
