"""A target that differs from the reference only where the interface is open passes what
the reference passes (``tests/open_variant.py``): extra fields in every object, error
constraints as objects, fixed fees as money objects, 202 signature challenges."""

from __future__ import annotations

import pytest

from tests.open_variant import EXTRA_KEY, rewrite, serving
from tests.reference.reference_helpers import start_sandbox

from .runner import conformance_run

# the tests the hardening issue saw failing a server that differs only where it is open
SELECTED = " or ".join(
    [
        "test_fee_configuration_for_usd_is_accepted",
        "test_patch_changes_only_the_fields_it_sends",
        "test_valid_patches_are_accepted_echoed_and_kept",
        "contact_verification",
        "test_two_invalid_fields_are_both_named",
        "test_currency_entry_rules",
        "wallet_credentials",
        "test_a_transaction_names_its_customer_quote_and_kind",
        "test_a_just_in_time_quote_carries_payment_instructions_with_a_reference",
    ]
)
PARTS = "resources,endpoints,transitions,errors,limits"


def test_rewrite_adds_fields_and_changes_open_types():
    body = {
        "details": {"errors": [{"field": "a", "constraint": "MAX_LENGTH"}]},
        "feeConfigs": [{"sourceCurrency": "USD", "fixedFee": 10}],
        "data": [1, {"x": 1}],
    }
    out = rewrite(body)
    assert out["details"]["errors"][0]["constraint"] == {"name": "MAX_LENGTH", "value": None}
    assert out["feeConfigs"][0]["fixedFee"]["amount"] == 10
    assert EXTRA_KEY in out and EXTRA_KEY in out["details"] and EXTRA_KEY in out["data"][1]
    assert out["data"][0] == 1


def _target_args(banner: dict, url: str) -> list[str]:
    args = [
        f"--target-url={url}",
        f"--client-id={banner['client_id']}",
        f"--client-secret={banner['client_secret']}",
        f"--second-client-id={banner['second_client_id']}",
        f"--second-client-secret={banner['second_client_secret']}",
        f"--webhook-public-key={banner['webhook_public_key_pem']}",
        f"--adapter={banner['adapter']}",
        f"--features={','.join(banner.get('features', []))}",
    ]
    for key in ("wallet_enclave_public_key", "wallet_rp_id", "wallet_origin"):
        if banner.get(key):
            args.append(f"--{key.replace('_', '-')}={banner[key]}")
    if banner.get("wallet_oidc_issuers"):
        args.append(f"--wallet-oidc-issuers={','.join(banner['wallet_oidc_issuers'])}")
    return args


@pytest.mark.slow
def test_a_target_open_where_the_interface_is_open_fails_nothing(tmp_path):
    sandbox = start_sandbox()
    try:
        root, _, version = sandbox.base_url.rpartition("/")
        with serving(root) as proxy:
            result = conformance_run(
                tmp_path,
                f"--parts={PARTS}",
                *_target_args(sandbox.banner, f"{proxy}/{version}"),
                "--webhook-timeout=3",
                "--",
                "-k",
                SELECTED,
            )
    finally:
        sandbox.stop()
    totals = result.summary.get("totals", {})
    assert totals.get("passed", 0) > 10, result.output[-3000:]
    assert result.summary["failures"] == [], result.summary["failures"]
