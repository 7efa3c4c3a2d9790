"""The target profile: what the suite knows of the server under test.

Settings come from flags, ``CONFORMANCE_*`` environment variables and a TOML profile file,
with the precedence flag > environment > file. Everything is validated at start-up: a
missing or contradictory setting raises ``pytest.UsageError`` naming the setting, its
value and the fix, so the run ends with exit code 2 instead of a traceback.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

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
}

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


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


def _usage(setting: str, value: object, problem: str, fix: str) -> pytest.UsageError:
    return pytest.UsageError(f"conformance: {setting}={value!r}: {problem}. {fix}")


def _read_profile_file(path: str) -> tuple[dict[str, Any], dict[str, str]]:
    file = Path(path)
    flag = opt.typed(opt.PROFILE_FLAG)  # as the user typed it
    if not file.is_file():
        raise _usage(flag, path, "no such file", "Give the path of a TOML profile.")
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise _usage(flag, path, f"not valid TOML ({exc})", "Fix the file.") from exc
    field_names = data.pop(opt.FIELD_NAMES_TABLE, {})
    values = dict(data.pop("target", {}))
    values.update(data)
    known = {s.key for s in opt.SETTINGS}
    unknown = sorted(set(values) - known)
    if unknown:
        raise _usage(
            flag,
            path,
            f"unknown key(s) {', '.join(unknown)}",
            f"Known keys: {', '.join(sorted(known))}, and the table [{opt.FIELD_NAMES_TABLE}].",
        )
    bad_names = sorted(set(field_names) - set(FIELD_NAME_DEFAULTS))
    if bad_names:
        raise _usage(
            flag,
            path,
            f"unknown [{opt.FIELD_NAMES_TABLE}] key(s) {', '.join(bad_names)}",
            f"Known: {', '.join(sorted(FIELD_NAME_DEFAULTS))}.",
        )
    return values, {str(k): str(v) for k, v in field_names.items()}


def _from_profile_folder(values: dict[str, Any], folder: Path) -> None:
    """Relative paths a profile file gives are relative to its folder, wherever the run
    starts: a profile and its key, waivers and adapter travel together. PEM text and module
    names are not paths."""
    for setting in opt.PATH_SETTINGS:
        value = values.get(setting.key)
        if not isinstance(value, str) or not value.strip():
            continue
        if setting is opt.WEBHOOK_KEY and "-----BEGIN" in value:
            continue
        if setting is opt.ADAPTER and not _is_adapter_file(value):
            continue
        path = Path(value).expanduser()
        values[setting.key] = str(path if path.is_absolute() else folder / path)


def _is_adapter_file(value: str) -> bool:
    """An adapter given as a file's path (``adapters/mine.py``), not a module name."""
    return value.endswith(".py")


def _coerce(setting: opt.Setting, raw: object, source: str) -> Any:
    name = f"{setting.flag} ({source})"
    if setting.kind == "bool":
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise _usage(name, raw, "not a boolean", "Use true or false.")
    if setting.kind == "float":
        try:
            value = float(raw)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise _usage(name, raw, "not a number", "Give seconds, e.g. 10.") from None
        if value <= 0:
            raise _usage(name, raw, "must be positive", "Give seconds, e.g. 10.")
        return value
    if setting.kind == "count":
        try:
            count = int(str(raw).strip()) if not isinstance(raw, bool) else 0
        except ValueError:
            count = 0
        if count < 1:
            raise _usage(name, raw, "not a positive whole number", "Give e.g. 2.")
        return count
    if setting.kind == "list":
        items = raw if isinstance(raw, list) else str(raw).split(",")
        return tuple(str(i).strip() for i in items if str(i).strip())
    if setting.kind == "choice" and str(raw) not in setting.choices:
        raise _usage(name, raw, "unknown value", f"Use one of: {', '.join(setting.choices)}.")
    if not isinstance(raw, str):
        raise _usage(name, raw, "must be a string", "Quote the value.")
    return raw


def load_profile(config: pytest.Config, environ: Mapping[str, str] | None = None) -> TargetProfile:
    """Resolve the target profile from pytest's options, the environment and the profile file."""
    env = os.environ if environ is None else environ
    _check_environment(env)
    profile_path = config.getoption("conformance_profile") or env.get(opt.PROFILE_ENV)
    file_values, field_names = _read_profile_file(profile_path) if profile_path else ({}, {})
    if profile_path:
        _from_profile_folder(file_values, Path(profile_path).expanduser().resolve().parent)

    values: dict[str, Any] = {}
    for setting in opt.SETTINGS:
        flag_value = config.getoption(setting.dest)
        if flag_value is not None:
            values[setting.key] = _coerce(setting, flag_value, "flag")
        elif env.get(setting.env):
            values[setting.key] = _coerce(setting, env[setting.env], setting.env)
        elif setting.key in file_values:
            values[setting.key] = _coerce(setting, file_values[setting.key], "profile file")
    names = dict(FIELD_NAME_DEFAULTS)
    names.update(field_names)
    return validate_profile(values, names)


def _check_pair(values: Mapping[str, Any], first: opt.Setting, second: opt.Setting) -> None:
    has_first, has_second = bool(values.get(first.key)), bool(values.get(second.key))
    if has_first != has_second:
        given, missing = (first, second) if has_first else (second, first)
        raise _usage(
            given.flag,
            "<set>",
            f"given without {missing.flag}",
            f"Set both, or neither (env {missing.env}).",
        )


def validate_profile(values: dict[str, Any], field_names: dict[str, str]) -> TargetProfile:
    """Check the combination of settings and build the profile."""
    for first, second in (
        (opt.CLIENT_ID, opt.CLIENT_SECRET),
        (opt.SECOND_CLIENT_ID, opt.SECOND_CLIENT_SECRET),
        (opt.PRODUCTION_CLIENT_ID, opt.PRODUCTION_CLIENT_SECRET),
    ):
        _check_pair(values, first, second)

    base_url = values.get("base_url")
    embedded = base_url is None
    if embedded:
        for setting in (opt.CLIENT_ID, opt.SECOND_CLIENT_ID, opt.PRODUCTION_CLIENT_ID):
            if values.get(setting.key):
                raise _usage(
                    setting.flag,
                    "<set>",
                    "credentials given but no target",
                    f"Give {opt.BASE_URL.flag} too, or drop the credentials to run the "
                    "embedded reference sandbox.",
                )
        if values.get("environment") == "production":
            raise _usage(
                opt.ENVIRONMENT.flag,
                "production",
                "the embedded reference sandbox is a sandbox",
                f"Give {opt.BASE_URL.flag} for a production target.",
            )
    else:
        parts = urlsplit(str(base_url))
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise _usage(
                opt.BASE_URL.flag,
                base_url,
                "not an http(s) URL",
                "Give e.g. https://api.example.com/2025-10-13.",
            )
        if not values.get("client_id"):
            raise _usage(
                opt.BASE_URL.flag,
                base_url,
                "a target needs credentials",
                f"Set {opt.CLIENT_ID.flag} and {opt.CLIENT_SECRET.flag} "
                f"(or {opt.CLIENT_ID.env} / {opt.CLIENT_SECRET.env}).",
            )
        base_url = normalise_base_url(str(base_url))
    for setting in (opt.EMBEDDED_ARGS, opt.EMBEDDED_SANDBOXES):
        if values.get(setting.key) and not embedded:
            raise _usage(
                setting.flag,
                values[setting.key],
                "only applies to the embedded sandbox",
                f"Drop it, or drop {opt.BASE_URL.flag}.",
            )
    key = values.get("webhook_public_key")
    if key is not None:
        values["webhook_public_key"] = _read_key(key)
    if values.get("sink_public_url"):
        url = urlsplit(values["sink_public_url"])
        if url.scheme not in ("http", "https") or not url.netloc:
            raise _usage(
                opt.SINK_PUBLIC_URL.flag,
                values["sink_public_url"],
                "not an http(s) URL",
                "Give the tunnel's public URL.",
            )
    _check_wallet_key(values.get("wallet_enclave_public_key"))
    _check_features(values.get("features", ()))
    values["base_url"] = base_url
    return TargetProfile(embedded=embedded, field_names=field_names, **values)


def _check_environment(env: Mapping[str, str]) -> None:
    """A misspelt CONFORMANCE_* variable would be ignored silently: refuse it."""
    from conformance.ground.env_names import unknown_names

    unknown = unknown_names(env)
    if unknown:
        name, close = unknown[0]
        fix = f"Did you mean {close}?" if close else "Unset it, or see `pytest --help`."
        raise _usage("environment variable", name, "not a setting the kit knows", fix)


def _check_features(names: tuple[str, ...]) -> None:
    """A misspelt feature would silently skip the tests it gates: refuse it."""
    from conformance.ground.features import KNOWN_FEATURES, unknown_features

    unknown = unknown_features(tuple(names))
    if unknown:
        raise _usage(
            opt.FEATURES.flag,
            ",".join(names),
            f"unknown feature(s) {', '.join(unknown)}",
            f"Known features: {', '.join(KNOWN_FEATURES)}.",
        )


def _check_wallet_key(value: object) -> None:
    """The enclave key must be hex of a P-256 point (SEC1, compressed or uncompressed)."""
    if value is None:
        return
    from conformance.ground.public_keys import public_key_from_hex

    if public_key_from_hex(value) is None:
        raise _usage(
            opt.WALLET_ENCLAVE_KEY.flag,
            str(value)[:40],
            "not a hex-encoded P-256 public key",
            "Give the SEC1 point in hex (04... uncompressed, or 02.../03... compressed).",
        )


def _read_key(value: str) -> str:
    """Return PEM text from either the text itself or a path to a PEM file."""
    from conformance.ground.public_keys import load_public_key

    text = value
    if "-----BEGIN" not in value:
        path = Path(value).expanduser()
        if not path.is_file():
            raise _usage(
                opt.WEBHOOK_KEY.flag,
                value,
                "neither PEM text nor a readable file",
                "Give the path of the PEM file or its text.",
            )
        text = path.read_text(encoding="utf-8")
    try:
        load_public_key(text)
    except ValueError as exc:
        raise _usage(opt.WEBHOOK_KEY.flag, value[:40], str(exc), "Give a PEM public key.") from exc
    return text


@dataclass(frozen=True, eq=False)  # a plugin object: pluggy keeps plugins in a set
class ResolvedProfile:
    """A profile the command line resolved, handed to the plugin in the same process (as a
    pytest plugin object): the run resolves its profile once, where it starts."""

    profile: TargetProfile


def run_profile(config: pytest.Config) -> TargetProfile:
    """The run's profile: the one the command line handed over, else resolved here from
    pytest's options, the environment and the profile file (``pytest -p conformance``)."""
    for plugin in config.pluginmanager.get_plugins():
        if isinstance(plugin, ResolvedProfile):
            return plugin.profile
    return load_profile(config)
