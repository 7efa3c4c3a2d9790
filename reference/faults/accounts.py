"""Fault modes of the accounts area (reference/accounts/)."""

from __future__ import annotations

from reference.faults.legacy import legacy

legacy(
    "rule-based-idempotency-ignored",
    breaks="a repeated POST /internal-accounts with the same Idempotency-Key mints another account",
    clause="§4 Accounts: 200 with the first account",
    part="endpoints",
    caught_by=("test_repeating_the_idempotency_key_returns_the_first_account",),
)
legacy(
    "rule-based-conflict-accepted",
    breaks="an Idempotency-Key reused for a different account answers 201 with a new account",
    clause="§4 Accounts, §7 Errors: 409",
    part="errors",
    caught_by=("test_a_key_reused_for_a_different_account_answers_409",),
)
legacy(
    "rule-based-no-sweep",
    breaks="funding a rule-based account keeps the money there instead of sweeping it",
    clause="§2 InternalAccount RULE_BASED, §4 sandbox fund: triggers the sweep",
    part="endpoints",
    caught_by=("test_funding_a_rule_based_account_sweeps_to_the_destination",),
)
legacy(
    "rule-based-business-allowed",
    breaks="a business customer gets a rule-based account",
    clause="§4 Accounts, §8 Limits: individuals only",
    part="limits",
    caught_by=("test_a_business_gets_no_rule_based_account",),
)
legacy(
    "rule-based-any-currency",
    breaks="a rule-based account in EUR is created",
    clause="§2 InternalAccount, §8 Limits: USD only",
    part="limits",
    caught_by=("test_a_rule_based_account_in_another_currency_is_rejected",),
)
legacy(
    "rule-based-feature-ignored",
    breaks="a platform without the rule-based feature creates rule-based accounts",
    clause="§4 Accounts: the feature must be enabled for the platform",
    part="endpoints",
    caught_by=("test_a_platform_without_the_feature_cannot_create_one",),
)
legacy(
    "ownership-event-missing",
    breaks="ownership verification changes an external account's status without firing EXTERNAL_ACCOUNT.STATUS_UPDATED",
    clause="§3 External account, §6 Events",
    part="transitions",
    caught_by=(
        "test_successful_ownership_verification_makes_the_account_active",
        "test_a_failed_ownership_verification_makes_the_account_unverified",
    ),
)
legacy(
    "ownership-failed-becomes-active",
    breaks="a failed ownership-verification attempt makes the external account ACTIVE",
    clause="§3 External account: UNVERIFIED on a failed attempt",
    part="transitions",
    caught_by=("test_a_failed_ownership_verification_makes_the_account_unverified",),
)
legacy(
    "ownership-event-stale-status",
    breaks="EXTERNAL_ACCOUNT.STATUS_UPDATED carries the account in its status before the change",
    clause="§3 External account: each change fires EXTERNAL_ACCOUNT.STATUS_UPDATED",
    part="transitions",
    caught_by=(
        "test_successful_ownership_verification_makes_the_account_active",
        "test_a_failed_ownership_verification_makes_the_account_unverified",
    ),
)
legacy(
    "rule-based-lengths-unchecked",
    breaks="POST /internal-accounts accepts an Idempotency-Key and a label over 255 characters",
    clause="§8 Limits: up to 255",
    part="limits",
    caught_by=(
        "test_an_idempotency_key_holds_up_to_255_characters",
        "test_an_account_label_holds_up_to_255_characters",
    ),
)
legacy(
    "jit-quote-executable",
    breaks="POST /quotes/{quoteId}/execute executes a just-in-time quote",
    clause="§4 Quotes rule 2: never executed with the execute endpoint",
    part="transitions",
    caught_by=("test_the_execute_endpoint_does_not_execute_a_just_in_time_quote",),
)
legacy(
    "jit-immediate-execute-accepted",
    breaks="POST /quotes with immediatelyExecute and a REALTIME_FUNDING source executes it",
    clause="§4 Quotes request table: only for internal or direct-pull sources",
    part="endpoints",
    caught_by=("test_immediately_execute_does_not_execute_a_just_in_time_quote",),
)
legacy(
    "pull-source-scenario-ignored",
    breaks="a pull source's identifier suffix (005, 003, 099) is ignored: the pull settles at once",
    clause="§4 Sandbox behaviours: whenever the account is a pull source",
    part="transitions",
    caught_by=("test_a_pull_sources_suffix_selects_its_scenario",),
)
legacy(
    "frozen-account-sends",
    breaks="a FROZEN internal account is quoted and executed as a source",
    clause="§3 Internal account: FROZEN accounts cannot send",
    part="transitions",
    caught_by=("test_a_frozen_account_reads_frozen_and_its_payments_are_blocked",),
)
legacy(
    "closed-account-receives",
    breaks="a CLOSED internal account is credited by funding and transfers",
    clause="§3 Internal account: CLOSED accounts cannot receive",
    part="transitions",
    caught_by=("test_a_closed_account_reads_closed_and_neither_sends_nor_receives",),
)
legacy(
    "provisioning-failure-active",
    breaks="an account whose provisioning fails becomes ACTIVE instead of FAILED",
    clause="§3 Internal account: PENDING to FAILED",
    part="transitions",
    caught_by=("test_an_account_whose_provisioning_fails_reads_failed_and_receives_nothing",),
)
