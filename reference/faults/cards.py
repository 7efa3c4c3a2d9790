"""Fault modes of the cards area (reference/cards/)."""

from __future__ import annotations

from reference.faults.legacy import legacy

legacy(
    "card-decline-as-exception",
    breaks="an underfunded card authorization is stored EXCEPTION instead of DECLINED",
    clause="§2 CardTransaction: a decline before money moved is DECLINED, never EXCEPTION",
    part="transitions",
    caught_by=("test_an_underfunded_authorization_is_declined_never_exception",),
)
legacy(
    "card-declined-reason-missing",
    breaks="a DECLINED card transaction carries no cardDeclinedReason",
    clause="§2 CardTransaction: cardDeclinedReason is set with DECLINED",
    part="resources",
    caught_by=("test_a_declined_authorization_names_its_reason",),
)
legacy(
    "card-reversal-not-voided",
    breaks="a fully reversed authorization stays AUTHORIZED",
    clause="§2 CardTransaction: fully reversed before clearing is VOIDED",
    part="transitions",
    caught_by=("test_a_fully_reversed_authorization_is_voided",),
)
legacy(
    "card-expiry-not-voided",
    breaks="an authorization that expires before clearing becomes EXCEPTION",
    clause="§2 CardTransaction: expired before clearing is VOIDED",
    part="transitions",
    caught_by=("test_an_authorization_expired_before_clearing_is_voided",),
)
legacy(
    "card-return-merged",
    breaks="a merchant return is merged into the purchase (its refundedAmount) and opens no row",
    clause="§2 CardTransaction: a return opens its own CREDIT row",
    part="transitions",
    caught_by=("test_a_merchant_return_opens_its_own_credit_row",),
)
legacy(
    "card-refunded-status",
    breaks="a merchant return sets the purchase to REFUNDED and fires CARD_TRANSACTION.REFUNDED",
    clause="§2 CardTransaction and §9.3: REFUNDED does not exist",
    part="versioning",
    caught_by=("test_a_merchant_return_shows_no_refunded_status_or_event",),
)
legacy(
    "card-settled-event-missing",
    breaks="a card transaction that settles fires no CARD_TRANSACTION.SETTLED",
    clause="§6 Events: every card transaction state transition",
    part="webhooks",
    caught_by=("test_every_card_transition_fires_an_event_carrying_the_card_transaction",),
)
legacy(
    "card-event-partial-data",
    breaks="CARD_TRANSACTION.* events carry only the transaction's id and status",
    clause="§6 Events: carrying the full card transaction",
    part="webhooks",
    caught_by=("test_every_card_transition_fires_an_event_carrying_the_card_transaction",),
)
legacy(
    "card-amount-metadata-missing",
    breaks="card transaction amounts carry currency code and decimals only",
    clause="§2 CardTransaction: full currency metadata",
    part="resources",
    caught_by=("test_card_transactions_carry_direction_and_full_currency_metadata",),
)
legacy(
    "card-merchant-location-dropped",
    breaks="a card transaction's merchant omits the city and state the network reported",
    clause="§2 CardTransaction: merchant includes city and state",
    part="resources",
    caught_by=("test_the_merchant_carries_the_city_and_state_the_network_reported",),
)
legacy(
    "card-capabilities-missing",
    breaks="a card record carries no cardCapabilities",
    clause="§2 Card record",
    part="resources",
    caught_by=("test_a_card_record_states_whether_it_supports_wallet_tokenization",),
)
legacy(
    "card-tokenize-plaintext",
    breaks="POST /cards/{id}/tokenize answers the provisioning data base64-encoded, not encrypted",
    clause="§4: encrypted to the wallet provider's keys",
    part="endpoints",
    caught_by=("test_tokenize_answers_a_payload_encrypted_to_the_wallet_provider",),
)
legacy(
    "return-reversal-ignored",
    breaks="POST /sandbox/cards/{id}/simulate/return_reversal answers 200 and changes nothing",
    clause="§4: simulates the reversal; §6: every card transaction state transition",
    part="endpoints",
    caught_by=("test_return_reversal_simulates_the_reversal_of_a_posted_return",),
)
