"""The target profile: what the suite knows of the server under test, as one object the
run resolves once (``profile_loading``) and passes down."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from conformance import INTERFACE_VERSION
from conformance.ground import options as opt

DATE_SEGMENT = re.compile(r"/(\d{4}-\d{2}-\d{2})$")

# Names the interface leaves open; the defaults are the reference sandbox's choices.
FIELD_NAME_DEFAULTS: dict[str, str] = {
    "fee_config_currency": "sourceCurrency",
    "fee_config_variable_bps": "variableRateBps",
    "fee_config_fixed": "fixedFee",
    # §2 InternalAccount: "balance fields: available balance ... and total balance"
    "internal_account_available_balance": "availableBalance",
    "internal_account_total_balance": "totalBalance",
    # §2 InternalAccount: the platform-supplied label ("field name: not shown" in §4 Accounts)
    "internal_account_label": "label",
    # §4 Quotes and transactions: platformFeeOverride "inner shape: not shown"
    "fee_override_variable_bps": "variableRateBps",
    "fee_override_fixed": "fixedFee",
    # §2 Transaction: refund "object tracking refund status and reference"
    "refund_status": "status",
    "refund_reference": "reference",
    # §2 ExternalAccount: only US_ACCOUNT and the wallet's address are shown; the type and
    # number field of an IBAN account (used for EUR and other IBAN currencies)
    "iban_account_type": "IBAN_ACCOUNT",
    "iban_account_number": "iban",
    # §2 Quote: a destination of type UMA_ADDRESS ("its address field name: not shown")
    "uma_address": "umaAddress",
    # §4 POST /sandbox/cards/{id}/simulate/return_reversal: "id of the refund row" (name not shown)
    "card_return_reversal_id": "transactionId",
    # §2 ExternalAccount: "the wallet account type carries address" (type name not shown)
    "wallet_account_type": "WALLET",
    # §2 InternalAccount: "card capabilities" of an account that can fund a card (name not shown)
    "internal_account_card_capabilities": "cardCapabilities",
    # §7: the member carrying the error code ("not shown"); a code as the value of any
    # top-level member counts whatever this says (contract/error_codes.py)
    "error_code": "code",
}

# §4 "List endpoints: pagination parameters and response envelope: not shown": how the
# target pages, when the profile says (the [pagination] table; exchange/list_pages.py)
PAGINATION_KEYS = ("cursor_parameter", "next_member", "items_member")


@dataclass(frozen=True, slots=True)
class Credentials:
    """A token id and secret, plus the environment variables a curl line names them by."""

    client_id: str
    client_secret: str
    id_env: str = opt.CLIENT_ID.env
    secret_env: str = opt.CLIENT_SECRET.env

    def __repr__(self) -> str:  # never show the secret, even in a traceback
        return f"Credentials(client_id={self.client_id!r}, client_secret='<redacted>')"


@dataclass(frozen=True, slots=True)
class TargetProfile:
    """Everything the suite knows of the target; immutable once the session starts."""

    base_url: str | None
    client_id: str | None = None
    client_secret: str | None = field(default=None, repr=False)
    second_client_id: str | None = None
    second_client_secret: str | None = field(default=None, repr=False)
    production_client_id: str | None = None
    production_client_secret: str | None = field(default=None, repr=False)
    webhook_public_key: str | None = None
    environment: str = "sandbox"
    regulated: bool = False
    skip_verification_paperwork: bool = False
    features: tuple[str, ...] = ()
    adapter: str | None = None
    report_dir: str = "reports"
    request_timeout: float = 10.0
    allow_production_writes: bool = False
    sink_host: str = "127.0.0.1"
    sink_https: bool = False
    sink_public_url: str | None = None
    webhook_timeout: float = 20.0
    embedded_args: str = ""
    embedded_sandboxes: int | None = None  # under xdist; None: one per worker, up to the CPUs
    field_names: Mapping[str, str] = field(default_factory=lambda: dict(FIELD_NAME_DEFAULTS))
    pagination: Mapping[str, str] = field(default_factory=dict)  # [pagination]; empty: unknown
    embedded: bool = False
    # §5 embedded wallet: what the interface does not show (the sandbox prints them)
    wallet_enclave_public_key: str | None = None
    wallet_rp_id: str | None = None
    wallet_origin: str | None = None
    wallet_oidc_issuers: tuple[str, ...] = ()
    rate_limit: float | None = None  # requests a second (--rate-limit); None: unlimited
    waivers: str | None = None  # a waiver file's path (--waivers)
    baseline: str | None = None  # an earlier summary.json's path (--baseline)

    # -- derived views -------------------------------------------------------------------

    @property
    def root_url(self) -> str:
        """The base URL without its version segment."""
        assert self.base_url is not None
        return DATE_SEGMENT.sub("", self.base_url)

    @property
    def version_segment(self) -> str | None:
        """The date segment the base URL ends in, if any."""
        match = DATE_SEGMENT.search(self.base_url or "")
        return match.group(1) if match else None

    @property
    def primary(self) -> Credentials:
        assert self.client_id is not None and self.client_secret is not None
        return Credentials(self.client_id, self.client_secret)

    @property
    def second(self) -> Credentials | None:
        if not (self.second_client_id and self.second_client_secret):
            return None
        return Credentials(
            self.second_client_id,
            self.second_client_secret,
            opt.SECOND_CLIENT_ID.env,
            opt.SECOND_CLIENT_SECRET.env,
        )

    @property
    def production(self) -> Credentials | None:
        if not (self.production_client_id and self.production_client_secret):
            return None
        return Credentials(
            self.production_client_id,
            self.production_client_secret,
            opt.PRODUCTION_CLIENT_ID.env,
            opt.PRODUCTION_CLIENT_SECRET.env,
        )

    @property
    def credentials(self) -> tuple[Credentials, ...]:
        """Every credential pair the profile holds (primary, second, production)."""
        primary = self.primary if self.client_id and self.client_secret else None
        return tuple(c for c in (primary, self.second, self.production) if c is not None)

    @property
    def secrets(self) -> tuple[str, ...]:
        """Every secret value the profile holds, for redaction."""
        values = (self.client_secret, self.second_client_secret, self.production_client_secret)
        return tuple(v for v in values if v)

    @property
    def writes_allowed(self) -> bool:
        """Whether tests that move money or change configuration may run."""
        return self.environment == "sandbox" or self.allow_production_writes

    def field_name(self, key: str) -> str:
        """The target's name for a field the interface leaves open (see FIELD_NAME_DEFAULTS)."""
        return self.field_names.get(key, FIELD_NAME_DEFAULTS[key])

    @property
    def fee_config_names(self) -> dict[str, str]:
        """The target's names inside a feeConfigs entry (§2 leaves them open)."""
        return {
            "currency": self.field_name("fee_config_currency"),
            "variable_bps": self.field_name("fee_config_variable_bps"),
            "fixed": self.field_name("fee_config_fixed"),
        }

    def with_target(self, base_url: str, **values: Any) -> TargetProfile:
        """A copy pointing at a started target (the embedded default)."""
        return replace(self, base_url=normalise_base_url(base_url), **values)

    def to_dict(self) -> dict[str, Any]:
        """A plain dict (for xdist workers); holds secrets, never write it to a report."""
        data = asdict(self)
        data["features"] = list(self.features)
        data["wallet_oidc_issuers"] = list(self.wallet_oidc_issuers)
        data["field_names"] = dict(self.field_names)
        data["pagination"] = dict(self.pagination)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TargetProfile:
        values = dict(data)
        values["features"] = tuple(values.get("features", ()))
        values["wallet_oidc_issuers"] = tuple(values.get("wallet_oidc_issuers", ()))
        return cls(**values)

    def describe(self) -> dict[str, Any]:
        """What a report may show of the profile: no secrets."""
        return {
            "base_url": self.base_url,
            "environment": self.environment,
            "embedded": self.embedded,
            "regulated": self.regulated,
            "skip_verification_paperwork": self.skip_verification_paperwork,
            "features": list(self.features),
            "second_platform": self.second is not None,
            "production_keys": self.production is not None,
            "webhook_public_key": self.webhook_public_key is not None,
            "adapter": self.adapter,
            "field_names": dict(self.field_names),
            "pagination": dict(self.pagination),
            "wallet_rp_id": self.wallet_rp_id,
            "wallet_origin": self.wallet_origin,
            "wallet_oidc_issuers": list(self.wallet_oidc_issuers),
            "wallet_enclave_public_key": self.wallet_enclave_public_key is not None,
        }


# -- loading ---------------------------------------------------------------------------------


def normalise_base_url(url: str) -> str:
    """Strip a trailing slash and add the version segment when the URL carries none."""
    url = url.rstrip("/")
    if DATE_SEGMENT.search(url):
        return url
    return f"{url}/{INTERFACE_VERSION}"
