"""Fault modes of the accounts area (reference/accounts/)."""

from __future__ import annotations

from typing import Any

from reference.accounts import funding, ownership, rule_based, states
from reference.accounts.external_accounts import ExternalAccount
from reference.accounts.internal_accounts import InternalAccount
from reference.faults.registry import fault


@fault(
    "rule-based-idempotency-ignored",
    at=rule_based.KEY_RECORD,
    clause="§4 Accounts: 200 with the first account",
    part="endpoints",
    caught_by=("test_repeating_the_idempotency_key_returns_the_first_account",),
)
def forget_every_key(record: tuple[str, str] | None, **context: Any) -> tuple[str, str] | None:
    """a repeated POST /internal-accounts with the same Idempotency-Key mints another account"""
    return None


@fault(
    "rule-based-conflict-accepted",
    at=rule_based.KEY_RECORD,
    clause="§4 Accounts, §7 Errors: 409",
    part="errors",
    caught_by=("test_a_key_reused_for_a_different_account_answers_409",),
)
def forget_keys_used_for_other_bodies(
    record: tuple[str, str] | None, *, digest: str, **context: Any
) -> tuple[str, str] | None:
    """an Idempotency-Key reused for a different account answers 201 with a new account"""
    if record is not None and record[0] != digest:
        return None
    return record


@fault(
    "rule-based-no-sweep",
    at=rule_based.SWEEP_DESTINATION,
    clause="§2 InternalAccount RULE_BASED, §4 sandbox fund: triggers the sweep",
    part="endpoints",
    caught_by=("test_funding_a_rule_based_account_sweeps_to_the_destination",),
)
def never_sweep(destination: InternalAccount | None, **context: Any) -> InternalAccount | None:
    """funding a rule-based account keeps the money there instead of sweeping it"""
    return None


@fault(
    "rule-based-business-allowed",
    at=rule_based.CUSTOMER_KIND_ALLOWED,
    clause="§4 Accounts, §8 Limits: individuals only",
    part="limits",
    caught_by=("test_a_business_gets_no_rule_based_account",),
)
def businesses_allowed(allowed: bool, **context: Any) -> bool:
    """a business customer gets a rule-based account"""
    return True


@fault(
    "rule-based-any-currency",
    at=rule_based.CURRENCY_ALLOWED,
    clause="§2 InternalAccount, §8 Limits: USD only",
    part="limits",
    caught_by=("test_a_rule_based_account_in_another_currency_is_rejected",),
)
def any_currency_allowed(allowed: bool, **context: Any) -> bool:
    """a rule-based account in EUR is created"""
    return True


@fault(
    "rule-based-feature-ignored",
    at=rule_based.FEATURE_ENABLED,
    clause="§4 Accounts: the feature must be enabled for the platform",
    part="endpoints",
    caught_by=("test_a_platform_without_the_feature_cannot_create_one",),
)
def feature_on_everywhere(enabled: bool, **context: Any) -> bool:
    """a platform without the rule-based feature creates rule-based accounts"""
    return True


@fault(
    "ownership-event-missing",
    at=ownership.STATUS_EVENT,
    clause="§3 External account, §6 Events",
    part="transitions",
    caught_by=(
        "test_successful_ownership_verification_makes_the_account_active",
        "test_a_failed_ownership_verification_makes_the_account_unverified",
    ),
)
def fire_no_status_event(data: dict[str, Any] | None, **context: Any) -> dict[str, Any] | None:
    """ownership verification changes an external account's status without firing
    EXTERNAL_ACCOUNT.STATUS_UPDATED"""
    return None


@fault(
    "ownership-failed-becomes-active",
    at=ownership.VERIFIED_STATUS,
    clause="§3 External account: UNVERIFIED on a failed attempt",
    part="transitions",
    caught_by=("test_a_failed_ownership_verification_makes_the_account_unverified",),
)
def every_attempt_verifies(status: str, **context: Any) -> str:
    """a failed ownership-verification attempt makes the external account ACTIVE"""
    return ownership.ACTIVE


@fault(
    "ownership-event-stale-status",
    at=ownership.STATUS_EVENT,
    clause="§3 External account: each change fires EXTERNAL_ACCOUNT.STATUS_UPDATED",
    part="transitions",
    caught_by=(
        "test_successful_ownership_verification_makes_the_account_active",
        "test_a_failed_ownership_verification_makes_the_account_unverified",
    ),
)
def show_the_account_before_the_change(
    data: dict[str, Any] | None, *, before: ExternalAccount, **context: Any
) -> dict[str, Any] | None:
    """EXTERNAL_ACCOUNT.STATUS_UPDATED carries the account in its status before the change"""
    return None if data is None else before.as_json()


@fault(
    "rule-based-lengths-unchecked",
    at=rule_based.LENGTH_WITHIN_LIMIT,
    clause="§8 Limits: up to 255",
    part="limits",
    caught_by=(
        "test_an_idempotency_key_holds_up_to_255_characters",
        "test_an_account_label_holds_up_to_255_characters",
    ),
)
def any_length_fits(within: bool, **context: Any) -> bool:
    """POST /internal-accounts accepts an Idempotency-Key and a label over 255 characters"""
    return True


@fault(
    "jit-quote-executable",
    at=funding.EXECUTE_REFUSED,
    clause="§4 Quotes rule 2: never executed with the execute endpoint",
    part="transitions",
    caught_by=("test_the_execute_endpoint_does_not_execute_a_just_in_time_quote",),
)
def execute_just_in_time_quotes(refused: bool, **context: Any) -> bool:
    """POST /quotes/{quoteId}/execute executes a just-in-time quote"""
    return False


@fault(
    "jit-immediate-execute-accepted",
    at=funding.IMMEDIATE_REFUSED,
    clause="§4 Quotes request table: only for internal or direct-pull sources",
    part="endpoints",
    caught_by=("test_immediately_execute_does_not_execute_a_just_in_time_quote",),
)
def execute_just_in_time_immediately(refused: bool, **context: Any) -> bool:
    """POST /quotes with immediatelyExecute and a REALTIME_FUNDING source executes it"""
    return False


@fault(
    "pull-source-scenario-ignored",
    at=funding.PULL_SCENARIO,
    clause="§4 Sandbox behaviours: whenever the account is a pull source",
    part="transitions",
    caught_by=("test_a_pull_sources_suffix_selects_its_scenario",),
)
def pull_at_once(scenario: str, **context: Any) -> str:
    """a pull source's identifier suffix (005, 003, 099) is ignored: the pull settles at once"""
    return ""


@fault(
    "frozen-account-sends",
    at=states.SENDS,
    clause="§3 Internal account: FROZEN accounts cannot send",
    part="transitions",
    caught_by=("test_a_frozen_account_reads_frozen_and_its_payments_are_blocked",),
)
def frozen_accounts_send(sends: bool, *, status: str) -> bool:
    """a FROZEN internal account is quoted and executed as a source"""
    return sends or status == states.FROZEN


@fault(
    "closed-account-receives",
    at=states.RECEIVES,
    clause="§3 Internal account: CLOSED accounts cannot receive",
    part="transitions",
    caught_by=("test_a_closed_account_reads_closed_and_neither_sends_nor_receives",),
)
def closed_accounts_receive(receives: bool, *, status: str) -> bool:
    """a CLOSED internal account is credited by funding and transfers"""
    return receives or status == states.CLOSED


@fault(
    "provisioning-failure-active",
    at=states.TRANSITION_TARGET,
    clause="§3 Internal account: PENDING to FAILED",
    part="transitions",
    caught_by=("test_an_account_whose_provisioning_fails_reads_failed_and_receives_nothing",),
)
def failed_provisioning_activates(target: str, *, action: str, start: str) -> str:
    """an account whose provisioning fails becomes ACTIVE instead of FAILED"""
    return states.ACTIVE if target == states.FAILED else target
