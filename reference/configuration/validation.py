"""Validation of a ``PATCH /config`` body (§2 PlatformConfig, §4 Platform configuration).

Every writable field is checked and every problem recorded before one ``InvalidInput`` is
raised. The result maps each writable field present in the body to its normalised value.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from reference.configuration.endpoint_addresses import AddressClass, classify_host
from reference.configuration.user_info import USER_INFO_FIELD_NAMES
from reference.kernel.currencies import is_iso4217
from reference.kernel.seams import seam
from reference.kernel.settings import ServerSettings
from reference.kernel.validation import Problems, at

_MAX_URL_LENGTH = 2048
# A DNS name of two labels or more, the last (the top-level domain) starting with a letter.
# The same expression is the umaDomain pattern of the OpenAPI document the reference serves
# by (schemas/requests/config-patch.json), so what it declares is what it accepts.
HOSTNAME = re.compile(
    r"([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
)
MAX_HOSTNAME = 253
_CURRENCY_CODE = re.compile(r"[A-Z]{3}")
# RFC 3986: what a path, a query and a fragment may hold (a pchar is unreserved,
# percent-encoded, a sub-delim, ":" or "@"). A webhookEndpoint is echoed in the config, whose
# schema calls it a URI; the served document declares the same characters (without
# percent-encodings, a subset that keeps its pattern cheap for a generator to draw from).
URL_CHARS = "A-Za-z0-9._~!$&'()*+,;=:@-"  # the pchars that are not percent-encodings
_PCHAR = f"(%[0-9A-Fa-f]{{2}}|[{URL_CHARS}])"
URL_PATH = re.compile(f"(/({_PCHAR}|/)*)?")
URL_QUERY = re.compile(f"({_PCHAR}|[/?])*")
_FEE_SOURCE_CURRENCY = "USD"  # §8 Limits: platform fee configuration USD source only
MAX_FEE_BPS = 10_000  # a whole amount: 100%
# a fixed fee is an amount: bounded as every amount the sandbox takes (quotes, funding), so
# each sum stays inside SQLite's 64-bit integers; the served document declares it
MAX_FIXED_FEE = 10**15

PATCH_CHANGES = seam(
    "config.patch_changes",
    "the changes (API field name -> normalised value) a PATCH /config body asks for: its"
    " writable fields only, before its problems are raised (context: body, problems)",
)
HTTP_WEBHOOK_ALLOWED = seam(
    "config.http_webhook_allowed",
    "whether an http:// webhookEndpoint is accepted: only on a loopback host (context: host)",
)
PATCHED_CURRENCY = seam(
    "config.patched_currency",
    "one supportedCurrencies entry as normalised from a PATCH body, before its problems are"
    " raised (context: sent, the entry object as sent; path; problems)",
)
CURRENCY_AMOUNTS_REQUIRED = seam(
    "config.currency_amounts_required",
    "whether every supportedCurrencies entry must carry minAmount and maxAmount",
)
CURRENCY_CODE = seam(
    "config.currency_code",
    "the currencyCode a supportedCurrencies entry is kept with: the code sent when it is an"
    " upper-case ISO 4217 code, else None, which is refused (context: sent, the string sent)",
)
FEE_SOURCE_ACCEPTED = seam(
    "config.fee_source_accepted",
    "whether a feeConfigs entry's sourceCurrency is accepted: USD only (context: source)",
)


def validate_config_patch(body: dict[str, Any], settings: ServerSettings) -> dict[str, Any]:
    """The changes a valid PATCH body asks for; unknown and read-only keys are ignored."""
    problems = Problems()
    checks = {
        "umaDomain": _uma_domain,
        "webhookEndpoint": lambda p, v: _webhook_endpoint(p, v, settings),
        "supportedCurrencies": lambda p, v: _supported_currencies(p, v, settings),
        "feeConfigs": lambda p, v: _fee_configs(p, v, settings),
        "cardTokenization2faConfig": _card_tokenization_2fa,
    }
    # A value that failed a check comes back partial; it is never stored, because any
    # recorded problem raises before the changes are returned.
    # Read-only keys (proxyUmaSubdomain) are not checked: they are ignored.
    changes = {name: check(problems, body[name]) for name, check in checks.items() if name in body}
    changes = settings.seams.apply(PATCH_CHANGES, changes, body=body, problems=problems)
    problems.raise_if_any()
    return changes


def is_hostname(text: str) -> bool:
    """A DNS name of at least two labels, e.g. ``example.com`` (no scheme, no port)."""
    return len(text) <= MAX_HOSTNAME and HOSTNAME.fullmatch(text) is not None


def _uma_domain(problems: Problems, value: Any) -> Any:
    if value is None:
        return None  # back to the default domain
    text = problems.string("umaDomain", value)
    if text is None:
        return None
    if not is_hostname(text.lower()):
        problems.add("umaDomain", "HOSTNAME", "must be a DNS name such as pay.example.com")
        return None
    return text.lower()


def _webhook_endpoint(problems: Problems, value: Any, settings: ServerSettings) -> Any:
    field = "webhookEndpoint"
    if value is None:
        return None  # clears the endpoint
    text = problems.string(field, value)
    if text is None:
        return None
    if len(text) > _MAX_URL_LENGTH:
        problems.add(field, "MAX_LENGTH", f"must be at most {_MAX_URL_LENGTH} characters")
        return None
    try:
        parts = urlsplit(text)
        host = parts.hostname
        _ = parts.port  # raises ValueError for a port that is not a number in range
    except ValueError:  # e.g. an unclosed IPv6 bracket
        parts, host = None, None
    if (
        parts is None
        or parts.scheme not in ("http", "https")
        or not host
        or any(c.isspace() for c in text)
        or not URL_PATH.fullmatch(parts.path)
        or not URL_QUERY.fullmatch(parts.query)
        or not URL_QUERY.fullmatch(parts.fragment)
    ):
        problems.add(field, "URL", "must be an absolute https:// URL with a host")
        return None
    where = classify_host(host)
    if parts.scheme == "http" and not settings.seams.apply(
        HTTP_WEBHOOK_ALLOWED, where is AddressClass.LOOPBACK, host=host
    ):
        problems.add(field, "HTTPS_REQUIRED", "must use https:// (http:// only on loopback)")
        return None
    if where is AddressClass.LINK_LOCAL:
        problems.add(
            field,
            "ADDRESS_NOT_ALLOWED",
            "must not be a link-local address (169.254.0.0/16, fe80::/10); give the"
            " platform's public https:// URL",
        )
        return None
    if where is AddressClass.PRIVATE and not settings.allow_private_webhooks:
        problems.add(
            field,
            "ADDRESS_NOT_ALLOWED",
            "must not be a private or reserved address (10/8, 172.16/12, 192.168/16,"
            " fc00::/7, ...); give a public https:// URL, or start the sandbox with"
            " --allow-private-webhooks",
        )
        return None
    return text


def _supported_currencies(problems: Problems, value: Any, settings: ServerSettings) -> Any:
    field = "supportedCurrencies"
    entries = problems.array(field, value)
    if entries is None:
        return None
    amounts_required = settings.seams.apply(CURRENCY_AMOUNTS_REQUIRED, True)
    result: list[dict[str, Any]] = []
    first_index: dict[str, int] = {}
    for index, entry in enumerate(entries):
        path = at(field, index)
        obj = problems.object(path, entry)
        if obj is None:
            continue
        code = _currency_code(problems, obj, path, settings)
        low = _amount(problems, obj, "minAmount", path, required=amounts_required)
        high = _amount(problems, obj, "maxAmount", path, required=amounts_required)
        # minAmount above maxAmount is taken: a range that admits no amount. No document can
        # declare an order between two fields, and the interface states none.
        counterparty = _counterparty_fields(problems, obj, path)
        if code is not None and code in first_index:
            problems.add(
                at(path, "currencyCode"),
                "DUPLICATE",
                f"{code} is already listed at {at(field, first_index[code])}",
            )
        elif code is not None:
            first_index[code] = index
        normalised = {
            "currencyCode": code,
            "minAmount": low,
            "maxAmount": high,
            "requiredCounterpartyFields": counterparty,
        }
        # The read-only providerRequiredCustomerFields is ignored.
        result.append(
            settings.seams.apply(
                PATCHED_CURRENCY, normalised, sent=obj, path=path, problems=problems
            )
        )
    return result


def _currency_code(
    problems: Problems, obj: dict[str, Any], path: str, settings: ServerSettings
) -> str | None:
    value = problems.required(obj, "currencyCode", path)
    if value is None:
        return None
    text = problems.string(at(path, "currencyCode"), value)
    if text is None:
        return None
    code = text if _CURRENCY_CODE.fullmatch(text) and is_iso4217(text) else None
    code = settings.seams.apply(CURRENCY_CODE, code, sent=text)
    if code is None:
        problems.add(at(path, "currencyCode"), "ISO_4217", "must be an ISO 4217 currency code")
    return code


def _amount(
    problems: Problems, obj: dict[str, Any], key: str, path: str, *, required: bool
) -> int | None:
    value = problems.required(obj, key, path) if required else obj.get(key)
    return None if value is None else problems.integer(at(path, key), value, minimum=0)


def _counterparty_fields(problems: Problems, obj: dict[str, Any], path: str) -> list[Any]:
    key = "requiredCounterpartyFields"
    value = problems.required(obj, key, path)
    items = None if value is None else problems.array(at(path, key), value)
    result: list[dict[str, Any]] = []
    seen: set[str] = set()
    for index, item in enumerate(items or []):
        item_path = at(at(path, key), index)
        entry = problems.object(item_path, item)
        if entry is None:
            continue
        raw_name = problems.required(entry, "name", item_path)
        name = None
        if raw_name is not None:
            name = problems.one_of(at(item_path, "name"), raw_name, USER_INFO_FIELD_NAMES)
        if name is not None and name in seen:
            problems.add(at(item_path, "name"), "DUPLICATE", f"{name} is listed twice")
        raw_mandatory = problems.required(entry, "mandatory", item_path)
        mandatory = None
        if raw_mandatory is not None:
            mandatory = problems.boolean(at(item_path, "mandatory"), raw_mandatory)
        if name is not None:
            seen.add(name)
        result.append({"name": name, "mandatory": mandatory})
    return result


def _fee_configs(problems: Problems, value: Any, settings: ServerSettings) -> Any:
    field = "feeConfigs"
    entries = problems.array(field, value)
    if entries is None:
        return None
    result: list[dict[str, Any]] = []
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        path = at(field, index)
        obj = problems.object(path, entry)
        if obj is None:
            continue
        source = problems.required(obj, "sourceCurrency", path)
        if source is not None:
            source = problems.string(at(path, "sourceCurrency"), source)
        if source is not None and not settings.seams.apply(
            FEE_SOURCE_ACCEPTED, source == _FEE_SOURCE_CURRENCY, source=source
        ):
            problems.add(at(path, "sourceCurrency"), "USD_ONLY", "platform fees are USD only (§8)")
        elif source is not None and source in seen:
            problems.add(at(path, "sourceCurrency"), "DUPLICATE", f"{source} is listed twice")
        elif source is not None:
            seen.add(source)
        normalised: dict[str, Any] = {"sourceCurrency": source}
        bounds = {"variableRateBps": (0, MAX_FEE_BPS), "fixedFee": (0, MAX_FIXED_FEE)}
        for key, (low, high) in bounds.items():
            if key in obj:  # null included: it is not an integer
                normalised[key] = problems.integer(
                    at(path, key), obj[key], minimum=low, maximum=high
                )
        if len(normalised) == 1:
            problems.add(path, "AT_LEAST_ONE", "needs variableRateBps, fixedFee or both")
        result.append(normalised)
    return result


def _card_tokenization_2fa(problems: Problems, value: Any) -> Any:
    field = "cardTokenization2faConfig"
    if value is None:
        return None
    obj = problems.object(field, value)
    if obj is None:
        return None
    for key, item in obj.items():
        problems.string(at(field, key), item)
    return dict(obj)
