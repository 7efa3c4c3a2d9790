"""Agreements and consents (§2 Customer ``agreementConsents``, §4 "Recording consent").

The catalogue of agreements the sandbox offers, validation of the consents a create or
PATCH carries (``agreementConsents`` or the deprecated ``endUserTermsConsent``), and how
they are recorded: the latest acceptance per type is kept, other types stay untouched.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reference.kernel.field_checks import ip_address, text, timestamp
from reference.kernel.seams import seam
from reference.kernel.settings import ServerSettings
from reference.kernel.validation import Problems, at

# The interface's `<SERVICE>_END_USER_TERMS` with the neutral word (§2 Customer).
END_USER_TERMS = "SERVICE_END_USER_TERMS"
_CONSENT_FIELDS = ("acceptedAt", "ipAddress", "termsVersion", "acceptanceMethod")
_REQUIRED = ("termsVersion", "acceptedAt", "ipAddress")


@dataclass(frozen=True, slots=True)
class Agreement:
    """One agreement a customer can accept: its type, current version and page."""

    type: str
    version: str
    slug: str  # the hosted page is /hosted/agreements/{slug}

    def as_json(self, root_url: str) -> dict[str, str]:
        """The ``{type, version, url}`` entry of ``GET /customers/agreements``."""
        return {"type": self.type, "version": self.version, "url": self.url(root_url)}

    def url(self, root_url: str) -> str:
        """Where the agreement's text is served (outside the versioned API)."""
        return f"{root_url}/hosted/agreements/{self.slug}"


AGREEMENTS: tuple[Agreement, ...] = (
    Agreement(END_USER_TERMS, "2025-06-01", "end-user-terms"),
    Agreement("SERVICE_PRIVACY_POLICY", "2025-03-15", "privacy-policy"),
    Agreement("SERVICE_E_SIGN_CONSENT", "2024-11-01", "e-sign-consent"),
)
BY_TYPE: Mapping[str, Agreement] = {agreement.type: agreement for agreement in AGREEMENTS}
BY_SLUG: Mapping[str, Agreement] = {agreement.slug: agreement for agreement in AGREEMENTS}

BOTH_FORMS_REFUSED = seam(
    "customers.both_consent_forms_refused",
    "whether a body carrying both agreementConsents and endUserTermsConsent is refused",
)
RECORDED = seam(
    "customers.consents_recorded",
    "the acceptances on file after recording new ones, by type (context: stored, the"
    " acceptances before; entries, the ones recorded)",
)


def validate_consents(
    problems: Problems, body: Mapping[str, Any], settings: ServerSettings
) -> list[dict[str, Any]]:
    """The acceptances the body records, each with its ``type``; problems are recorded.

    Both forms in one request are refused (§2 Customer).
    """
    entries: list[dict[str, Any]] = []
    legacy = body.get("endUserTermsConsent")
    current = body.get("agreementConsents")
    both = legacy is not None and current is not None
    if both and settings.seams.apply(BOTH_FORMS_REFUSED, True):
        problems.add(
            "endUserTermsConsent",
            "MUTUALLY_EXCLUSIVE",
            "send agreementConsents or the deprecated endUserTermsConsent, not both",
        )
    if current is not None:
        entries.extend(_agreement_consents(problems, current))
    if legacy is not None:
        obj = problems.object("endUserTermsConsent", legacy)
        if obj is not None:
            entry = _consent(problems, obj, "endUserTermsConsent", END_USER_TERMS)
            if entry is not None:
                entries.append(entry)
    return entries


def _agreement_consents(problems: Problems, value: Any) -> list[dict[str, Any]]:
    items = problems.array("agreementConsents", value)
    if items is None:
        return []
    entries: list[dict[str, Any]] = []
    seen: set[str] = set()
    for index, item in enumerate(items):
        path = at("agreementConsents", index)
        obj = problems.object(path, item)
        if obj is None:
            continue
        kind = problems.required(obj, "type", path)
        if kind is None:
            _consent(problems, obj, path, None)
            continue
        if not isinstance(kind, str) or kind not in BY_TYPE:  # a dict is unhashable
            problems.one_of(at(path, "type"), kind, BY_TYPE)
            _consent(problems, obj, path, None)
            continue
        if kind in seen:
            problems.add(at(path, "type"), "DUPLICATE", "at most one entry per type")
        seen.add(kind)
        entry = _consent(problems, obj, path, kind)
        if entry is not None:
            entries.append(entry)
    return entries


def _consent(
    problems: Problems, obj: Mapping[str, Any], path: str, kind: str | None
) -> dict[str, Any] | None:
    """One acceptance of agreement ``kind`` (None: the type itself was invalid)."""
    before = len(problems)
    for key in _REQUIRED:
        problems.required(obj, key, path)
    entry: dict[str, Any] = {}
    version = obj.get("termsVersion")
    if version is not None and text(problems, at(path, "termsVersion"), version) is not None:
        agreement = BY_TYPE.get(kind or "")
        if agreement is not None and version != agreement.version:
            problems.add(  # the catalogue's versions: declared per type in the served document
                at(path, "termsVersion"),
                "TERMS_VERSION",
                f"must be the current version {agreement.version} of {agreement.type}",
            )
        entry["termsVersion"] = version
    checks = {"acceptedAt": timestamp, "ipAddress": ip_address, "acceptanceMethod": text}
    for key, check in checks.items():
        if obj.get(key) is not None:
            entry[key] = check(problems, at(path, key), obj[key])
        elif key in obj and key not in _REQUIRED:  # a required one is REQUIRED already
            problems.add(at(path, key), "NOT_NULL", "must not be null: omit it instead")
    if kind is None or len(problems) != before:
        return None
    return {"type": kind, **{key: entry[key] for key in _CONSENT_FIELDS if key in entry}}


def record(
    stored: Mapping[str, dict[str, Any]],
    entries: list[dict[str, Any]],
    settings: ServerSettings,
) -> dict[str, dict[str, Any]]:
    """The acceptances on file after recording ``entries``: the latest per type wins and
    other types are untouched (§4)."""
    if not entries:
        return dict(stored)
    merged = dict(stored)
    for entry in entries:
        merged[entry["type"]] = entry
    return settings.seams.apply(RECORDED, merged, stored=stored, entries=entries)


def render(stored: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
    """``agreementConsents`` (catalogue order) and, once accepted, the mirrored
    deprecated ``endUserTermsConsent`` for a customer response."""
    consents = [stored[a.type] for a in AGREEMENTS if a.type in stored]
    body: dict[str, Any] = {"agreementConsents": consents}
    terms = stored.get(END_USER_TERMS)
    if terms is not None:
        body["endUserTermsConsent"] = {k: v for k, v in terms.items() if k != "type"}
    return body
