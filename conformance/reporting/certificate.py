"""What a certificate demands of a run, and what it states.

A certificate certifies a complete run: one that finished, whose plan (``run_plan.py``) ran
every part and every test the kit has, and whose every untested requirement the declared
profile explains. Explained: a feature the profile does not declare, a credential or
setting it does not supply, an adapter hook its adapter lacks, production writes off in
production, sandbox behaviour in production, and requirements the catalogue marks
production-only or not-testable. Not explained: a part not selected, tests deselected, a run
stopped early, and tests that skipped because of the target's own answers or errors.

:func:`refusals` says what keeps a run from being certified; :func:`coverage` and
:func:`waiver_list` are what the signed manifest states; :func:`describe` is how
``conformance verify`` prints it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from conformance.reporting.interface_coverage import headline_counts
from conformance.reporting.skip_reasons import skip_subject

__all__ = [
    "coverage",
    "coverage_text",
    "describe",
    "incomplete",
    "not_certified",
    "refusals",
    "waiver_list",
]

EXPLAINED_TESTABILITY = ("production-only", "not-testable")
SHOWN = 5  # ids or tests listed per line; the rest are counted

# The profile fact that says whether the setting a skip names was supplied.
_SETTING_FACTS = {
    "--second-client-id": ("credentials", "second_platform"),
    "--second-client-secret": ("credentials", "second_platform"),
    "--production-client-id": ("credentials", "production_keys"),
    "--production-client-secret": ("credentials", "production_keys"),
    "--webhook-public-key": ("settings", "webhook_public_key"),
    "--wallet-rp-id": ("settings", "wallet_rp_id"),
    "--wallet-origin": ("settings", "wallet_origin"),
    "--wallet-enclave-public-key": ("settings", "wallet_enclave_public_key"),
    "--wallet-oidc-issuers": ("settings", "wallet_oidc_issuers"),
}


def _listed(items: Sequence[str]) -> str:
    shown = ", ".join(items[:SHOWN])
    return shown + (f" (+{len(items) - SHOWN} more)" if len(items) > SHOWN else "")


def _supplied(flag: str, facts: Mapping[str, Any], reason: str) -> bool:
    where = _SETTING_FACTS.get(flag)
    if where is None:
        return False  # a setting this table does not know: taken as the one missing
    value = (facts.get(where[0]) or {}).get(where[1])
    if flag == "--wallet-oidc-issuers" and "second" in reason:
        return bool(value and value >= 2)
    return bool(value)


def _unexplained(group: Mapping[str, Any], facts: Mapping[str, Any]) -> str | None:
    """Why the declared profile does not explain one group of skips (None: it does)."""
    cause, reason = group["cause"], group["reasons"][0]
    named = skip_subject(reason)
    production = facts.get("environment") == "production"
    if cause == "feature":
        if named[0] in facts.get("features", ()):
            return f"feature '{named[0]}' is declared, yet its tests skipped ({reason})"
        return None
    if cause == "adapter_hook":
        if named[0] in facts.get("adapter_hooks", ()):
            return f"the adapter implements {named[0]}, yet its tests skipped ({reason})"
        return None
    if cause == "production_writes":
        if production and not facts.get("allow_production_writes"):
            return None
        return f"production writes are not off for this profile ({reason})"
    if cause == "environment":
        return None if production else f"the profile's environment is not production ({reason})"
    if cause == "missing_setting":
        if any(not _supplied(flag, facts, reason) for flag in named):
            return None
        return f"the profile supplies {', '.join(named) or 'what it names'} ({reason})"
    return f"skipped because of the target's own answers or errors ({reason})"


def incomplete(summary: Mapping[str, Any]) -> str | None:
    """Why the run is partial by its verdict (None: it finished)."""
    verdict = summary.get("verdict")
    if verdict in ("passed", "failed"):
        return None
    return f"the run is partial: verdict {verdict} ({summary.get('incomplete_reason')})"


def refusals(summary: Mapping[str, Any]) -> list[str]:
    """What keeps this run from being certified, each naming what is missing ([]: none)."""
    partial = incomplete(summary)
    if partial is not None:
        return [partial]
    plan = summary.get("plan")
    if not isinstance(plan, Mapping) or not isinstance(plan.get("profile"), Mapping):
        return [
            "summary.json records no run plan (a run by an older kit, or not by "
            "`conformance run`): certify it by running `conformance certify` again"
        ]
    problems = [f"narrowed by {n['by']}: {n['detail']}" for n in plan.get("narrowed", ())]
    selected = (plan.get("tests") or {}).get("selected") or 0
    ran = len(summary.get("tests", ()))
    if ran < selected:
        problems.append(f"{selected - ran} of the {selected} selected tests have no result")
    for group in summary.get("skips", ()):
        why = _unexplained(group, plan["profile"])
        if why is not None:
            problems.append(
                f"{group['count']} test(s) skipped unexplained by the declared profile: "
                f"{why}: {_listed(group['tests'])}"
            )
    unchecked: dict[str, list[str]] = {}
    for row in summary.get("untested", ()):
        if row.get("testability") not in EXPLAINED_TESTABILITY:
            why = (
                f"part '{row['part']}' not selected"
                if row["part"] not in plan.get("parts", ())
                else "no test checking it ran"
            )
            unchecked.setdefault(why, []).append(row["id"])
    for why, ids in unchecked.items():
        problems.append(f"{len(ids)} checkable requirement(s) not checked, {why}: {_listed(ids)}")
    return problems


def coverage(summary: Mapping[str, Any]) -> dict[str, Any]:
    """Requirements passed, failed, waived and untested; each untested one with why."""
    group_of = {nodeid: g for g in summary.get("skips", ()) for nodeid in g["tests"]}
    skipped_by: dict[str, list[Mapping[str, Any]]] = {}
    for test in summary.get("tests", ()):
        if test["outcome"] == "skipped" and test["nodeid"] in group_of:
            for rid in test["requirements"]:
                skipped_by.setdefault(rid, []).append(group_of[test["nodeid"]])
    untested = {row["id"]: row for row in summary.get("untested", ())}
    counts = dict.fromkeys(("passed", "failed", "waived", "untested"), 0)
    rows = []
    for requirement in summary.get("requirements", ()):
        status, rid = requirement["status"], requirement["id"]
        if status == "failed":
            bucket = "waived" if requirement.get("waived") else "failed"
        else:
            bucket = "passed" if status == "passed" else "untested"
        counts[bucket] += 1
        if bucket != "untested":
            continue
        if rid in untested:
            why = f"{untested[rid]['why']}"
            cause = untested[rid]["why"].split(":", 1)[0].replace("-", " ")
        else:
            groups = skipped_by.get(rid, ())
            causes = dict.fromkeys(
                f"{g['cause_text']}" + (f" (supply {g['supply']})" if g["supply"] else "")
                for g in groups
            )
            why = "its tests skipped: " + ("; ".join(causes) or "no reason recorded")
            cause = _cause(groups[0]) if groups else "no reason recorded"
        rows.append({"id": rid, "part": requirement["part"], "why": why, "cause": cause})
    return {"requirements": len(summary.get("requirements", ())), **counts, "untested_list": rows}


# What a skip's ``supply`` names, as a short cause (the first match counts).
_SUPPLIED = (
    ("--second-client", "no second-platform credentials"),
    ("--production-client", "no production credentials"),
    ("--webhook-public-key", "no webhook key"),
    ("--wallet-", "no wallet settings"),
    ("--adapter", "no adapter hook"),
)


def _cause(group: Mapping[str, Any]) -> str:
    """A short cause of a skip group, for the coverage line: what the profile lacks."""
    supply = str(group.get("supply") or "")
    label = next((words for flag, words in _SUPPLIED if flag in supply), None)
    if label is not None:
        return label
    if supply.startswith("--features "):
        return f"feature {supply.split()[1]} not declared"
    return str(group.get("cause_text") or "no reason recorded")


def coverage_text(verdict: object, cover: Mapping[str, Any]) -> str:
    """The certificate's coverage in one line: "passed: 229 of 340 requirements; 111
    untested (35: no second-platform credentials, ...)"."""
    text = f"{verdict}: {cover.get('passed')} of {cover.get('requirements')} requirements"
    text += "".join(f", {cover[kind]} {kind}" for kind in ("failed", "waived") if cover.get(kind))
    if not cover.get("untested"):
        return text + "; none untested"
    counts: dict[str, int] = {}
    for row in cover.get("untested_list") or ():
        cause = str(row.get("cause") or row.get("why") or "no reason recorded")
        counts[cause] = counts.get(cause, 0) + 1
    causes = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return (
        f"{text}; {cover['untested']} untested ("
        + ", ".join(f"{n}: {cause}" for cause, n in causes)
        + ")"
    )


def waiver_list(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every waiver the run declared: its subject, reason, expiry, and what it waived."""
    from conformance.reporting.waivers import Waiver

    declared = (summary.get("plan") or {}).get("waivers") or []
    expired = (summary.get("waivers") or {}).get("expired") or []
    rows = []
    for entry in declared:
        waiver = Waiver(
            reason=entry["reason"],
            expires=date.fromisoformat(entry["expires"]),
            test=entry.get("test"),
            requirement=entry.get("requirement"),
        )
        label = f"{waiver.reason} (expires {entry['expires']})"
        waived = [
            row["nodeid"]
            for row in summary.get("waived", ())
            if row.get("waiver") == label
            and waiver.covers(row["nodeid"], tuple(row["requirements"]))
        ]
        status = "expired" if entry in expired else "used" if waived else "unused"
        rows.append({**entry, "status": status, "waived_tests": waived})
    return rows


def not_certified(manifest: Mapping[str, Any]) -> str | None:
    """Why a signed manifest does not certify a complete run (None: it does)."""
    plan = manifest.get("plan")
    if not isinstance(plan, Mapping) or "coverage" not in manifest:
        return "its manifest records no run plan or coverage (a bundle by an older kit)"
    if not plan.get("complete") or plan.get("narrowed"):
        return "its run was narrowed: " + "; ".join(
            f"{n['by']} {n['detail']}" for n in plan.get("narrowed", ())
        )
    if manifest.get("verdict") not in ("passed", "failed"):
        return f"its run is partial (verdict {manifest.get('verdict')})"
    return None


def describe(manifest: Mapping[str, Any]) -> list[str]:
    """What ``conformance verify`` prints of a certificate: kit, target, plan, profile,
    coverage and waivers."""
    kit = manifest.get("kit") or {}
    target = manifest.get("target") or {}
    lines = [
        f"  kit: {kit.get('kit')} {kit.get('suite_version')} (interface "
        f"{kit.get('interface_version')}; code sha256 {kit.get('code_sha256')}; requirements "
        f"catalogue sha256 {kit.get('requirements_sha256')}; python {kit.get('python')})",
        f"  target: {target.get('base_url')} ({target.get('environment')})",
    ]
    plan = manifest.get("plan")
    if not isinstance(plan, Mapping):
        return [*lines, "  plan: none recorded (a bundle by an older kit)"]
    tests = plan.get("tests") or {}
    shape = "complete" if plan.get("complete") else "NARROWED"
    lines.append(
        f"  plan: {shape}: parts {', '.join(plan.get('parts', ()))}; "
        f"{tests.get('collected')} tests collected, {tests.get('deselected')} deselected, "
        f"{tests.get('selected')} run"
    )
    lines += [f"    narrowed by {n['by']}: {n['detail']}" for n in plan.get("narrowed", ())]
    lines += _profile_lines(plan.get("profile") or {})
    cover = manifest.get("coverage") or {}
    lines.append(
        f"  coverage: {cover.get('requirements')} requirements: {cover.get('passed')} passed, "
        f"{cover.get('failed')} failed, {cover.get('waived')} waived, "
        f"{cover.get('untested')} untested"
    )
    lines += [
        f"    untested {r['id']} ({r['part']}): {r['why']}" for r in cover.get("untested_list", ())
    ]
    interface = manifest.get("interface_coverage")
    if isinstance(interface, Mapping):
        counts = headline_counts(interface)
        lines.append("  interface coverage: " + "; ".join(f"{k} {v}" for k, v in counts.items()))
    waivers = manifest.get("waivers") or []
    lines.append(f"  waivers: {len(waivers) or 'none'}")
    for waiver in waivers:
        subject = waiver.get("test") or f"requirement {waiver.get('requirement')}"
        lines.append(
            f"    {subject}: {waiver['reason']}; expires {waiver['expires']}; {waiver['status']}"
            + (f" (waived {_listed(waiver['waived_tests'])})" if waiver["waived_tests"] else "")
        )
    return lines


def _profile_lines(facts: Mapping[str, Any]) -> list[str]:
    modes = facts.get("platform_modes") or {}
    credentials = facts.get("credentials") or {}
    settings = facts.get("settings") or {}
    present = [k for k, v in {**credentials, **settings}.items() if v]
    absent = [k for k, v in {**credentials, **settings}.items() if not v]
    hooks = facts.get("adapter_hooks") or []
    writes = "allowed" if facts.get("writes_allowed") else "off"
    return [
        f"  profile: environment {facts.get('environment')}"
        + (" (the embedded reference sandbox)" if facts.get("embedded") else "")
        + (f" started with {facts['embedded_args']!r}" if facts.get("embedded_args") else "")
        + f"; regulated {json.dumps(modes.get('regulated'))}; skip verification paperwork "
        f"{json.dumps(modes.get('skip_verification_paperwork'))}; production writes {writes}",
        f"    features: {', '.join(facts.get('features') or ()) or 'none declared'}",
        f"    supplied: {', '.join(present) or 'nothing'}; not supplied: "
        f"{', '.join(absent) or 'nothing'}",
        f"    adapter: {facts.get('adapter') or 'none'} ({len(hooks)} hooks)",
    ]
