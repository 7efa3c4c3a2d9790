"""Each fault mode of the reference makes the tests meant to catch it fail, in the right part.

This is the proof that the suite's checks can fail: the reference breaks one stated
behaviour and the named tests must report it with the clause.
"""

from __future__ import annotations

import pytest

from .runner import conformance_run

# fault -> (part, tests that must fail[, extra `conformance run` arguments, e.g. a platform mode])
FAULTS: dict[str, tuple[str, list[str]] | tuple[str, list[str], tuple[str, ...]]] = {
    "config-wrong-type": ("resources", ["test_platform_config_follows_its_schema"]),
    "config-missing-id": ("resources", ["test_platform_config_follows_its_schema"]),
    "config-patch-ignored": ("endpoints", ["test_valid_patches_are_accepted_echoed_and_kept"]),
    "config-shared-across-platforms": (
        "endpoints",
        ["test_each_platform_sees_only_its_own_configuration"],
    ),
    "validation-first-error-only": (
        "errors",
        [
            "test_two_invalid_fields_are_both_named",
            "test_generated_invalid_patches_name_every_invalid_field",
        ],
    ),
    "config-accept-http-webhook": ("errors", ["test_webhook_endpoint_must_be_https"]),
    "config-fee-any-currency": (
        "limits",
        ["test_fee_configuration_for_another_source_currency_is_rejected"],
    ),
    "auth-accept-missing": ("auth", ["test_missing_credentials_are_refused"]),
    "auth-accept-wrong-secret": ("auth", ["test_wrong_secret_is_refused"]),
    "auth-accept-production-keys": ("auth", ["test_production_keys_do_not_work_in_the_sandbox"]),
    "auth-no-reason": (
        "auth",
        [
            "test_missing_credentials_are_refused",
            "test_malformed_authorization_is_refused",
            "test_wrong_secret_is_refused",
        ],
    ),
    "webhook-forged-signature": ("webhooks", ["test_test_event_is_signed"]),
    "webhook-tampered-body": ("webhooks", ["test_test_event_is_signed"]),
    "webhook-unsigned": ("webhooks", ["test_test_event_is_signed"]),
    "webhook-test-not-sent": ("webhooks", ["test_test_event_reaches_the_configured_endpoint"]),
    "webhook-test-wrong-shape": ("webhooks", ["test_test_event_has_the_documented_shape"]),
    "config-local-timestamps": ("resources", ["test_platform_config_timestamps_are_utc"]),
    "config-no-default-uma-domain": ("resources", ["test_an_uma_domain_always_applies"]),
    "config-bad-provider-fields": (
        "resources",
        ["test_provider_required_customer_fields_are_user_info_field_names"],
    ),
    "config-provider-fields-writable": (
        "endpoints",
        ["test_provider_required_customer_fields_are_read_only"],
    ),
    "config-proxy-subdomain-writable": (
        "endpoints",
        ["test_proxy_uma_subdomain_is_assigned_by_the_service"],
    ),
    "config-patch-resets-unsent": ("endpoints", ["test_patch_changes_only_the_fields_it_sends"]),
    "config-fees-dropped": ("limits", ["test_fee_configuration_for_usd_is_accepted"]),
    "config-accept-lowercase-currency": ("errors", ["test_currency_codes_must_be_iso_4217"]),
    "config-amounts-optional": ("errors", ["test_currency_entry_rules"]),
    "wrong-version-segment": (
        "versioning",
        [
            "test_the_current_version_is_served_under_its_date_segment",
            "test_the_profile_base_url_carries_the_current_version",
        ],
    ),
    "kyc-rejected-suffix-approved": (
        "transitions",
        ["test_a_complete_submission_is_decided_by_the_suffix"],
    ),
    "kyc-final-status-changed": (
        "transitions",
        ["test_a_final_status_survives_another_submission"],
    ),
    "verification-missing-field-omitted": (
        "transitions",
        [
            "test_an_incomplete_submission_is_sent_back_whatever_the_suffix",
            "test_a_packet_lacking_one_part_is_sent_back_naming_it",
        ],
    ),
    "kyc-event-unsigned": ("webhooks", ["test_customer_events_are_signed"]),
    "kyc-events-out-of-order": ("webhooks", ["test_customer_events_follow_the_state_machine"]),
    "rename-rederives-status": (
        "transitions",
        ["test_renaming_a_final_customer_does_not_re_derive_its_status"],
    ),
    "consent-replaces-other-types": (
        "endpoints",
        ["test_recording_one_type_leaves_the_other_types_untouched"],
    ),
    "consents-both-accepted": (
        "errors",
        [
            "test_both_consent_forms_on_create_are_refused",
            "test_both_consent_forms_on_update_are_refused_and_record_nothing",
        ],
    ),
    "contact-not-required-accepted": (
        "errors",
        ["test_a_channel_the_provider_does_not_require_answers_409"],
    ),
    "kyc-link-ignores-contact": (
        "errors",
        ["test_a_kyc_link_before_the_channels_are_verified_answers_409"],
    ),
    "kyc-link-reused": ("endpoints", ["test_each_call_returns_a_fresh_link"]),
    "document-any-type": ("limits", ["test_files_of_other_media_types_are_refused"]),
    "document-quality-unchecked": (
        "errors",
        ["test_a_photo_without_corners_focus_or_colour_is_rejected"],
    ),
    "tax-id-unchecked": (
        "resources",
        ["test_a_tax_id_that_fits_no_reading_of_the_us_format_is_refused"],
    ),
    "regulated-suffix-ignored": (
        "transitions",
        ["test_an_individual_starts_where_its_suffix_and_the_platform_mode_say"],
        ("--regulated=true",),
    ),
    "business-owner-rule-off": (
        "transitions",
        ["test_a_001_or_003_business_needs_documents_and_an_owner"],
    ),
    "execute-double-debit": ("errors", ["test_a_second_execute_debits_nothing"]),
    "fee-on-receiving-side": (
        "endpoints",
        ["test_generated_quotes_follow_the_fee_and_rate_arithmetic"],
    ),
    "same-currency-rate-not-one": (
        "endpoints",
        ["test_generated_quotes_follow_the_fee_and_rate_arithmetic"],
    ),
    "execute-after-expiry": ("errors", ["test_an_expired_quote_is_not_executed"]),
    "refund-event-missing": (
        "webhooks",
        [
            "test_payment_events_follow_the_state_machine",
            "test_payment_events_are_envelopes_whose_data_is_the_transaction",
        ],
    ),
    "money-leak-on-refund": (
        "transitions",
        [
            "test_money_is_conserved_through_funding_payments_and_refunds",
            "test_a_failed_payout_fails_and_its_debit_is_refunded",
        ],
    ),
    "execute-not-atomic": (
        "transitions",
        ["test_simultaneous_executes_of_one_quote_debit_the_source_once"],
    ),
    # limits, refused rates, compliance holds, the shapes of money resources
    "size-limit-unenforced": (
        "limits",
        ["test_a_transaction_above_the_size_limit_is_refused_with_400"],
    ),
    "daily-limit-unenforced": (
        "limits",
        ["test_volume_above_the_daily_limit_is_refused_with_429"],
    ),
    "rate-refusal-debits": (
        "transitions",
        ["test_a_refused_rate_exchanges_nothing_and_a_new_quote_recovers"],
    ),
    "pending-reason-missing": (
        "resources",
        ["test_a_transaction_held_for_compliance_review_states_why"],
    ),
    "quote-amount-as-string": ("resources", ["test_a_quote_describes_the_request_it_answers"]),
    "transaction-id-unprefixed": (
        "resources",
        [
            "test_a_transaction_names_its_customer_quote_and_kind",
            "test_a_transaction_carries_the_parties_and_amounts_of_its_quote",
        ],
    ),
    "internal-account-balance-missing": (
        "resources",
        ["test_the_available_balance_never_exceeds_the_total"],
    ),
    "external-account-bad-status": (
        "resources",
        ["test_an_external_account_carries_its_owner_currency_and_account_info"],
    ),
    # rule-based accounts, ownership verification, payout scenarios, incoming payments
    "rule-based-idempotency-ignored": (
        "endpoints",
        ["test_repeating_the_idempotency_key_returns_the_first_account"],
    ),
    "rule-based-conflict-accepted": (
        "errors",
        ["test_a_key_reused_for_a_different_account_answers_409"],
    ),
    "rule-based-no-sweep": (
        "endpoints",
        ["test_funding_a_rule_based_account_sweeps_to_the_destination"],
    ),
    "rule-based-business-allowed": ("limits", ["test_a_business_gets_no_rule_based_account"]),
    "rule-based-any-currency": (
        "limits",
        ["test_a_rule_based_account_in_another_currency_is_rejected"],
    ),
    "rule-based-feature-ignored": (
        "endpoints",
        ["test_a_platform_without_the_feature_cannot_create_one"],
    ),
    "ownership-event-missing": (
        "transitions",
        [
            "test_successful_ownership_verification_makes_the_account_active",
            "test_a_failed_ownership_verification_makes_the_account_unverified",
        ],
    ),
    "ownership-failed-becomes-active": (
        "transitions",
        ["test_a_failed_ownership_verification_makes_the_account_unverified"],
    ),
    "ownership-event-stale-status": (
        "transitions",
        [
            "test_successful_ownership_verification_makes_the_account_active",
            "test_a_failed_ownership_verification_makes_the_account_unverified",
        ],
    ),
    "incoming-refund-event-missing": (
        "transitions",
        ["test_a_returned_incoming_deposit_is_refunded_with_its_events"],
    ),
    "slow-payment-never-settles": (
        "transitions",
        ["test_a_slow_payment_to_a_003_identifier_still_settles"],
    ),
    "rule-based-lengths-unchecked": (
        "limits",
        [
            "test_an_idempotency_key_holds_up_to_255_characters",
            "test_an_account_label_holds_up_to_255_characters",
        ],
    ),
    "ownership-pending-unusable": (
        "transitions",
        ["test_an_account_pending_ownership_verification_receives_a_small_payout"],
    ),
    # just-in-time funding, UMA, on-chain transfers, deprecated transfers
    "jit-quote-executable": (
        "transitions",
        ["test_the_execute_endpoint_does_not_execute_a_just_in_time_quote"],
    ),
    "jit-immediate-execute-accepted": (
        "endpoints",
        ["test_immediately_execute_does_not_execute_a_just_in_time_quote"],
    ),
    "sandbox-send-any-currency": (
        "endpoints",
        ["test_a_currency_other_than_the_funding_source_s_is_refused"],
    ),
    "jit-reference-ignored": (
        "transitions",
        ["test_only_a_payment_with_the_exact_reference_executes_the_quote"],
    ),
    "onchain-hash-missing": (
        "resources",
        ["test_a_settled_wallet_payout_carries_its_on_chain_transaction"],
    ),
    "uma-scenario-ignored": (
        "transitions",
        ["test_digits_at_the_end_of_the_username_part_select_the_scenario"],
    ),
    "pull-source-scenario-ignored": (
        "transitions",
        ["test_a_pull_sources_suffix_selects_its_scenario"],
    ),
    "pull-fee-on-receiving-side": (
        "endpoints",
        ["test_generated_quotes_follow_the_fee_and_rate_arithmetic"],
    ),
    "uma-incoming-no-transaction": (
        "transitions",
        ["test_an_incoming_uma_payment_creates_an_incoming_transaction"],
    ),
    "uma-limits-ignored": (
        "limits",
        ["test_uma_amounts_outside_the_currency_bounds_are_refused"],
    ),
    "transfer-out-gone": (
        "versioning",
        ["test_transfer_out_and_transfer_in_still_move_money"],
    ),
    # internal-account states
    "frozen-account-sends": (
        "transitions",
        ["test_a_frozen_account_reads_frozen_and_its_payments_are_blocked"],
    ),
    "closed-account-receives": (
        "transitions",
        ["test_a_closed_account_reads_closed_and_neither_sends_nor_receives"],
    ),
    "provisioning-failure-active": (
        "transitions",
        ["test_an_account_whose_provisioning_fails_reads_failed_and_receives_nothing"],
    ),
    "sca-challenge-skipped": (
        "transitions",
        [
            "test_executing_for_an_sca_customer_asks_for_authorization",
            "test_execute_again_while_awaiting_authorization_answers_409",
        ],
    ),
    "sca-reexecute-accepted": (
        "transitions",
        ["test_execute_again_while_awaiting_authorization_answers_409"],
    ),
    "sca-wrong-code-accepted": (
        "errors",
        ["test_wrong_proofs_never_authorize_and_a_lock_answers_423"],
    ),
    "sca-session-refusal-403": (
        "errors",
        ["test_authorization_without_an_sca_session_answers_409"],
    ),
    "sca-expiry-wrong-reason": (
        "transitions",
        ["test_an_expired_challenge_fails_the_transfer_with_sca_not_completed"],
    ),
    "sca-non-sca-endpoint-200": (
        "errors",
        [
            "test_quote_authorization_answers_409_for_customers_outside_sca",
            "test_sca_login_answers_409_for_customers_outside_sca",
        ],
    ),
    "sca-challenge-everyone": ("auth", ["test_customers_outside_sca_never_see_a_challenge"]),
    "sca-session-short": ("limits", ["test_an_sca_session_lasts_180_days"]),
    # money-movement rules a blunter fault left uncovered on another path
    "sca-non-sca-authorize-executes": (
        "errors",
        ["test_quote_authorization_answers_409_for_customers_outside_sca"],
    ),
    "jit-execute-starts-transfer": (
        "transitions",
        ["test_the_execute_endpoint_does_not_execute_a_just_in_time_quote"],
    ),
    "jit-instructions-missing-non-usd": (
        "resources",
        ["test_just_in_time_quotes_in_every_supported_currency_carry_instructions"],
    ),
    "completed-failure-reason": (
        "resources",
        ["test_a_transaction_names_its_customer_quote_and_kind"],
    ),
    "card-status-filter-card-statuses": (
        "errors",
        ["test_a_status_filter_with_type_card_answers_400"],
    ),
    "sca-jit-instructions-shown": (
        "resources",
        ["test_a_just_in_time_quote_withholds_its_instructions_while_challenged"],
    ),
    # cards (§2 CardTransaction, §4, §6, §9)
    "card-decline-as-exception": (
        "transitions",
        ["test_an_underfunded_authorization_is_declined_never_exception"],
    ),
    "card-declined-reason-missing": (
        "resources",
        ["test_a_declined_authorization_names_its_reason"],
    ),
    "card-reversal-not-voided": ("transitions", ["test_a_fully_reversed_authorization_is_voided"]),
    "card-expiry-not-voided": (
        "transitions",
        ["test_an_authorization_expired_before_clearing_is_voided"],
    ),
    "card-return-merged": ("transitions", ["test_a_merchant_return_opens_its_own_credit_row"]),
    "card-refunded-status": (
        "versioning",
        ["test_a_merchant_return_shows_no_refunded_status_or_event"],
    ),
    "card-settled-event-missing": (
        "webhooks",
        ["test_every_card_transition_fires_an_event_carrying_the_card_transaction"],
    ),
    "card-event-partial-data": (
        "webhooks",
        ["test_every_card_transition_fires_an_event_carrying_the_card_transaction"],
    ),
    "card-amount-metadata-missing": (
        "resources",
        ["test_card_transactions_carry_direction_and_full_currency_metadata"],
    ),
    "card-merchant-location-dropped": (
        "resources",
        ["test_the_merchant_carries_the_city_and_state_the_network_reported"],
    ),
    "internal-account-card-capabilities-missing": (
        "resources",
        ["test_an_account_funding_a_card_states_its_card_capabilities"],
    ),
    "card-capabilities-missing": (
        "resources",
        ["test_a_card_record_states_whether_it_supports_wallet_tokenization"],
    ),
    "card-id-filter-prefix-only": (
        "endpoints",
        ["test_card_transactions_are_listed_by_card_id_or_bare_uuid"],
    ),
    "card-tokenize-plaintext": (
        "endpoints",
        ["test_tokenize_answers_a_payload_encrypted_to_the_wallet_provider"],
    ),
    "return-reversal-ignored": (
        "endpoints",
        ["test_return_reversal_simulates_the_reversal_of_a_posted_return"],
    ),
    # agents (§4, §5 HTTP Bearer)
    "agent-redeem-no-access-token": (
        "endpoints",
        ["test_redeeming_a_device_code_returns_an_access_token"],
    ),
    "agent-bearer-any-customer": ("auth", ["test_an_agent_token_reaches_its_own_customer_only"]),
    "agent-policy-ignored": ("auth", ["test_an_operation_outside_the_agents_policy_is_refused"]),
    "agent-approve-ignored": (
        "endpoints",
        ["test_an_agent_initiated_transaction_proceeds_once_approved"],
    ),
    # invitations (§3 Invitation, §6 invitation claimed)
    "invitation-claim-no-uma": (
        "transitions",
        ["test_a_claimed_invitation_is_claimed_with_the_invitees_uma_address"],
    ),
    "invitation-claim-no-event": (
        "webhooks",
        ["test_claiming_an_invitation_notifies_the_platform"],
    ),
    "stablecoins-unauthenticated": (
        "auth",
        ["test_named_endpoints_without_shown_bodies_require_credentials"],
    ),
    # embedded wallet authentication (§5 items 1 to 6)
    "wallet-otp-any-code": ("auth", ["test_a_wrong_otp_code_is_refused_with_invalid_otp_code"]),
    "wallet-otp-no-hpke": (
        "auth",
        ["test_a_tampered_ciphertext_is_refused", "test_a_bundle_sealed_to_another_key_is_refused"],
    ),
    "wallet-hpke-500": (
        "auth",
        ["test_a_malformed_encapsulated_key_is_refused_not_a_server_error"],
    ),
    "wallet-otp-uncompressed-ok": ("auth", ["test_an_uncompressed_tek_key_is_refused"]),
    "wallet-signature-unchecked": (
        "auth",
        [
            "test_with_a_bad_signature_a_wallet_operation_does_not_take_effect",
            "test_an_otp_retry_signed_wrongly_is_refused",
            "test_execute_from_an_embedded_wallet_without_a_valid_signature_moves_no_money",
        ],
    ),
    "wallet-request-id-unbound": (
        "auth",
        [
            "test_an_otp_retry_with_the_request_id_of_another_operation_is_refused",
            "test_a_retry_with_the_request_id_of_another_operation_is_refused",
        ],
    ),
    "wallet-passkey-counter-ignored": (
        "auth",
        ["test_an_assertion_whose_counter_does_not_increase_is_refused"],
    ),
    "wallet-passkey-challenge-ignored": ("auth", ["test_a_hostile_assertion_is_refused"]),
    "wallet-passkey-origin-ignored": ("auth", ["test_a_hostile_assertion_is_refused"]),
    "wallet-passkey-up-ignored": ("auth", ["test_a_hostile_assertion_is_refused"]),
    "wallet-oauth-nonce-ignored": (
        "auth",
        [
            "test_a_token_whose_nonce_binds_another_key_is_refused",
            "test_a_token_without_a_nonce_is_refused",
        ],
    ),
    "wallet-oauth-iat-unchecked": (
        "limits",
        [
            "test_a_token_issued_more_than_a_minute_ago_is_refused",
            "test_a_token_issued_in_the_future_beyond_the_skew_is_refused",
        ],
    ),
    "wallet-oauth-identity-unchecked": ("auth", ["test_a_token_of_another_identity_is_refused"]),
    "wallet-oauth-alg-none": ("auth", ["test_an_unsigned_token_with_alg_none_is_refused"]),
    "wallet-session-revoke-ignored": (
        "endpoints",
        ["test_a_revoked_sessions_signing_key_is_no_longer_accepted"],
    ),
    "wallet-credential-revoke-ignored": (
        "endpoints",
        ["test_a_revoked_credential_can_no_longer_be_challenged_or_verified"],
    ),
    "wallet-execute-unsigned": (
        "auth",
        ["test_execute_from_an_embedded_wallet_without_a_valid_signature_moves_no_money"],
    ),
    "wallet-export-unsigned": (
        "auth",
        ["test_without_a_signature_a_wallet_operation_does_not_take_effect"],
    ),
    "wallet-legacy-literal-refused": (
        "auth",
        [
            "test_the_legacy_passkey_signature_literal_is_still_accepted",
            "test_the_legacy_wallet_signature_literal_is_still_accepted",
        ],
    ),
    "wallet-privacy-flag-everywhere": (
        "resources",
        ["test_the_privacy_flag_appears_only_on_embedded_wallet_accounts"],
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_fault_mode_is_caught(tmp_path, fault):
    part, must_fail, *rest = FAULTS[fault]
    extra = rest[0] if rest else ()
    result = conformance_run(
        tmp_path,
        f"--parts={part}",
        f"--embedded-args=--fault {fault}",
        "--webhook-timeout=3",
        *extra,
        # only the tests meant to catch it: the mode runs prove the rest pass a good server
        "--",
        "-p",
        "tests.conformance_runs.quick_failures",
        "-k",
        " or ".join(must_fail),
    )
    assert result.code == 1, f"exit {result.code}; expected 1\n{result.output[-3000:]}"
    failures = result.summary["failures"]
    failed_names = {f["nodeid"].split("::")[-1].split("[")[0] for f in failures}
    missed = [name for name in must_fail if name not in failed_names]
    assert not missed, f"{fault} was not caught by {missed}; failed: {sorted(failed_names)}"
    for failure in failures:
        assert failure["part"] == part
        assert failure["requirements"], failure
        assert "§" in failure["message"] or "Conventions" in failure["message"], failure["message"]


def test_every_fault_of_the_reference_is_exercised():
    from reference.faults import FAULTS as REFERENCE_FAULTS

    assert set(FAULTS) == set(REFERENCE_FAULTS)
