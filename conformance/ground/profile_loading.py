"""Resolving the target profile, once per process.

Settings come from flags, ``CONFORMANCE_*`` environment variables and a TOML profile file,
with the precedence flag > environment > file. Everything is validated at start-up: a
missing or contradictory setting raises ``pytest.UsageError`` naming the setting, its
value and the fix, so the run ends with exit code 2 instead of a traceback. The command
line resolves it and hands it to the plugin (``ResolvedProfile``); the plugin resolves it
itself only when run as a bare pytest plugin (``run_profile``).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from conformance.ground import options as opt
from conformance.ground.profile import (
    FIELD_NAME_DEFAULTS,
    PAGINATION_KEYS,
    TargetProfile,
    normalise_base_url,
)

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


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
    pagination = data.pop(opt.PAGINATION_TABLE, {})
    given = pagination if isinstance(pagination, dict) else {}
    bad_keys = sorted(set(given) - set(PAGINATION_KEYS))
    if bad_keys or not isinstance(pagination, dict):
        raise _usage(
            flag,
            path,
            f"unknown [{opt.PAGINATION_TABLE}] key(s) {', '.join(bad_keys) or pagination!r}",
            f"Known: {', '.join(PAGINATION_KEYS)}.",
        )
    if pagination:
        data["pagination"] = {str(k): str(v) for k, v in pagination.items()}
    values = dict(data.pop("target", {}))
    values.update(data)
    known = {s.key for s in opt.SETTINGS}
    unknown = sorted(set(values) - known)
    if unknown:
        raise _usage(
            flag,
            path,
            f"unknown key(s) {', '.join(unknown)}",
            f"Known keys: {', '.join(sorted(known))}, and the tables [{opt.FIELD_NAMES_TABLE}]"
            f" and [{opt.PAGINATION_TABLE}].",
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
        elif setting is opt.PAGINATION and isinstance(file_values.get(setting.key), dict):
            values[setting.key] = file_values[setting.key]  # the [pagination] table
        elif setting.key in file_values:
            values[setting.key] = _coerce(setting, file_values[setting.key], "profile file")
    if isinstance(values.get(opt.PAGINATION.key), tuple):
        values[opt.PAGINATION.key] = _pagination(values[opt.PAGINATION.key])
    names = dict(FIELD_NAME_DEFAULTS)
    names.update(field_names)
    return validate_profile(values, names)


def _pagination(pairs: tuple[str, ...]) -> dict[str, str]:
    """``cursor_parameter=NAME,...`` as the [pagination] table; a usage error otherwise."""
    table: dict[str, str] = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals or key.strip() not in PAGINATION_KEYS or not value.strip():
            raise _usage(
                opt.PAGINATION.flag,
                ",".join(pairs),
                f"{pair!r} is not KEY=NAME with a known key",
                f"Known keys: {', '.join(PAGINATION_KEYS)}.",
            )
        table[key.strip()] = value.strip()
    return table


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
