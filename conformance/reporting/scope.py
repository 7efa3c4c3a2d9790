"""What a verdict covers: the parts run, the requirements it decided, how it was narrowed.

People act on the first line they read, so every headline of a run (``summary.md``'s first
line, the console's verdict line, the Action's outputs, Allure's title) carries the scope
when the run was narrowed or left requirements undecided: "PASSED for auth, webhooks (45 of
340 requirements decided)". A run of every part that decided every requirement reads just
"PASSED".

A requirement is *decided* when its tests passed or failed (a waived failure is decided: it
failed); a skipped or untested one is not. Everything here is computed from the
``summary.json`` dict alone, so the Action and ``conformance report`` read the same scope
as the run wrote.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.contract.requirements import PARTS

__all__ = ["console_line", "headline", "scope", "scope_line", "scope_text"]

# The verdicts that judge the target; the others already say they cover nothing whole.
_JUDGED = ("passed", "failed")


def scope(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The summary's ``scope``: the parts the run set out to run (or ran, without a plan),
    whether the selection was narrowed (the plan says so; without one, the parts that ran
    are not all of them), each way it was (``{by, detail}``, the plan's), and the
    requirements decided out of the catalogue."""
    plan = summary.get("plan")
    parts = list((plan or {}).get("parts") or summary.get("parts_run") or ())
    if isinstance(plan, Mapping):
        narrowed = not plan.get("complete", True)
    else:
        narrowed = bool(parts) and set(parts) != set(PARTS)
    statuses = [row.get("status") for row in summary.get("requirements") or ()]
    decided = sum(1 for status in statuses if status in ("passed", "failed"))
    return {
        "parts": parts,
        "narrowed": narrowed,
        "narrowing": list((plan or {}).get("narrowed") or ()),
        "requirements": {
            "decided": decided,
            "total": len(statuses),
            "undecided": len(statuses) - decided,
        },
    }


def scope_text(summary: Mapping[str, Any]) -> str:
    """What follows the verdict in a headline: "" for a whole run that decided every
    requirement, else e.g. " for auth, webhooks (45 of 340 requirements decided)"."""
    if summary.get("verdict") not in _JUDGED:
        return ""
    view = summary.get("scope") or scope(summary)
    counts = view["requirements"]
    if counts["decided"] == counts["total"] and (not view["narrowed"] or summary.get("check")):
        return ""
    where = ""
    if view["narrowed"] and not summary.get("check"):  # a platform-side check has its parts
        where = f" for {', '.join(view['parts']) or 'no part'}"
        others = [f"{n['by']} {n['detail']}" for n in view["narrowing"] if n["by"] != "--parts"]
        if others:
            where += f", narrowed by {'; '.join(others)}"
    return f"{where} ({counts['decided']} of {counts['total']} requirements decided)"


def headline(summary: Mapping[str, Any], verdict_title: str) -> str:
    """``verdict_title`` (e.g. "PASSED") followed by the run's scope when it is partial."""
    return verdict_title + scope_text(summary)


def console_line(summary: Mapping[str, Any]) -> str:
    """The console's verdict line: "conformance: PASSED for auth (45 of 340 requirements
    decided)"."""
    return "conformance: " + headline(summary, str(summary.get("verdict", "")).upper())


def scope_line(summary: Mapping[str, Any]) -> str:
    """The scope in words, for a field of its own (Allure's overview, the Action's output):
    "auth, webhooks; 45 of 340 requirements decided; narrowed by --parts"."""
    view = summary.get("scope") or scope(summary)
    counts = view["requirements"]
    shape = (
        "narrowed by " + ", ".join(n["by"] for n in view["narrowing"])
        if view["narrowed"]
        else "every part"
    )
    return (
        f"{', '.join(view['parts']) or 'no part'}; {counts['decided']} of {counts['total']} "
        f"requirements decided; {shape}"
    )
