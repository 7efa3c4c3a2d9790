"""The run's plan: what it set out to run, and whether the selection was narrowed.

``summary.json`` carries it as ``plan``: the parts selected; every way the selection was
narrowed (``--parts``, ``-k``, ``-m``, paths or node ids narrower than the part folders,
``--deselect``/``--ignore``, ``--lf``/``--sw`` reselection, ``-x``/``--maxfail`` stopping
early, tests deselected by anything else); the collected, deselected and selected counts;
the declared waivers; and the declared profile facts (environment, platform modes,
features, the adapter's hooks, which credentials and settings are present; never a secret).
A certificate certifies a complete run only (``certificate.py``).

Under xdist the controller collects nothing: the workers count what they deselected and
hand it back through ``workeroutput``; the selected count comes with their collection.
:func:`narrowing_in_arguments` tells the same from a command line before anything runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from conformance.contract.requirements import PARTS, default_catalogue
from conformance.ground import hookspecs
from conformance.ground import options as opt
from conformance.ground.datafiles import SUITES_DIR
from conformance.ground.profile import TargetProfile

__all__ = ["PLUGIN_NAME", "RunPlan", "install", "narrowing_in_arguments", "view"]

PLUGIN_NAME = "conformance-run-plan"
_DESELECTED_OUTPUT = "conformance_plan_deselected"
_CHECKABLE = ("testable", "needs-adapter")


class RunPlan:
    """Counts what collection kept and dropped; :meth:`view` is the summary's ``plan``."""

    def __init__(self, config: pytest.Config, parts: frozenset[str]) -> None:
        self.config = config
        self.parts = parts
        self.deselected = 0
        self.selected: int | None = None
        self.worker = hasattr(config, "workerinput")
        self.profile: TargetProfile | None = None  # once resolved (``note_profile``)

    def pytest_deselected(self, items: Sequence[pytest.Item]) -> None:
        self.deselected += len(items)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        output = getattr(self.config, "workeroutput", None)
        if output is not None:
            output[_DESELECTED_OUTPUT] = self.deselected
        elif not self.worker and session.items:
            self.selected = len(session.items)

    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.selected = max(self.selected or 0, len(ids))

    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        # every worker collects the same tests: each deselects as many
        output = getattr(node, "workeroutput", None) or {}
        self.deselected = max(self.deselected, int(output.get(_DESELECTED_OUTPUT, 0)))

    def narrowed(self) -> list[dict[str, str]]:
        """Each way this run's selection was narrowed: ``{by, detail}``."""
        option = self.config.option
        ignored = [
            *(getattr(option, "ignore", None) or ()),
            *(getattr(option, "ignore_glob", None) or ()),
        ]
        reselect = [
            flag
            for flag, dest in (("--lf", "lf"), ("--sw", "stepwise"))
            if getattr(option, dest, False)
        ]
        found = _option_narrowing(
            parts=self.parts,
            keyword=getattr(option, "keyword", ""),
            markexpr=getattr(option, "markexpr", ""),
            deselect=getattr(option, "deselect", None) or [],
            ignore=ignored,
            maxfail=int(getattr(option, "maxfail", 0) or 0),
            reselect=reselect,
            collect_only=bool(getattr(option, "collectonly", False)),
        )
        found += _path_narrowing(self.config, self.parts)
        if self.deselected and not found:
            found.append(
                {"by": "deselection", "detail": f"{self.deselected} tests deselected by a plugin"}
            )
        return found

    def view(self) -> dict[str, Any]:
        """The summary's ``plan``."""
        narrowed = self.narrowed()
        selected = self.selected
        catalogue = default_catalogue()
        return {
            "complete": not narrowed,
            "parts": [p for p in PARTS if p in self.parts],
            "parts_not_selected": [p for p in PARTS if p not in self.parts],
            "narrowed": narrowed,
            "tests": {
                "collected": None if selected is None else selected + self.deselected,
                "deselected": self.deselected,
                "selected": selected,
            },
            "requirements": {
                "catalogue": len(catalogue),
                "checkable_in_selected_parts": sum(
                    1 for r in catalogue if r.testability in _CHECKABLE and r.part in self.parts
                ),
            },
            "waivers": _declared_waivers(self.config),
            "profile": _profile_facts(self.config, self.profile),
        }


def install(config: pytest.Config, parts: frozenset[str] | None = None) -> None:
    """Record this run's plan (controller: ``parts`` selected; an xdist worker: None)."""
    if not config.pluginmanager.has_plugin(PLUGIN_NAME):
        config.pluginmanager.register(RunPlan(config, parts or frozenset(PARTS)), PLUGIN_NAME)


def note_profile(config: pytest.Config, profile: TargetProfile) -> None:
    """Record the run's resolved profile, whose facts (never its secrets) the plan shows."""
    plan = config.pluginmanager.get_plugin(PLUGIN_NAME)
    if isinstance(plan, RunPlan):
        plan.profile = profile


def view(config: pytest.Config | None) -> dict[str, Any] | None:
    """The plan of the run ``config`` belongs to, or None outside a conformance run."""
    plan = config.pluginmanager.get_plugin(PLUGIN_NAME) if config is not None else None
    return plan.view() if isinstance(plan, RunPlan) else None


def _option_narrowing(
    *,
    parts: frozenset[str] | None,
    keyword: str,
    markexpr: str,
    deselect: Sequence[str],
    ignore: Sequence[str],
    maxfail: int,
    reselect: Sequence[str],
    collect_only: bool,
) -> list[dict[str, str]]:
    found = []
    if parts is not None and set(parts) != set(PARTS):
        chosen = ",".join(p for p in PARTS if p in parts)
        left = ", ".join(p for p in PARTS if p not in parts)
        found.append({"by": "--parts", "detail": f"{chosen} (not selected: {left})"})
    if keyword:
        found.append({"by": "-k", "detail": keyword})
    if markexpr:
        found.append({"by": "-m", "detail": markexpr})
    if deselect:
        found.append({"by": "--deselect", "detail": ", ".join(deselect)})
    if ignore:
        found.append({"by": "--ignore", "detail": ", ".join(str(i) for i in ignore)})
    for flag in reselect:
        found.append({"by": flag, "detail": "reruns only a subset of an earlier run's tests"})
    if maxfail > 0:
        found.append({"by": "-x/--maxfail", "detail": f"stops after {maxfail} failure(s)"})
    if collect_only:
        found.append({"by": "--collect-only", "detail": "collects the tests, runs none"})
    return found


def _suite_location(arg: str, invocation_dir: Path) -> tuple[str, Path] | None:
    """Where under the suites folder a collection argument points (a node id keeps its
    ``::`` tail), or None when it points elsewhere."""
    target, sep, tail = arg.partition("::")
    if target == "conformance.suites" or target.startswith("conformance.suites."):
        names = target.split(".")[2:]
        path = SUITES_DIR.joinpath(*names[:1], *(f"{n}.py" for n in names[1:2]))
    else:
        path = Path(target)
        path = (path if path.is_absolute() else invocation_dir / path).resolve()
    if path != SUITES_DIR and SUITES_DIR not in path.parents:
        return None
    return (sep + tail, path)


def _path_narrowing(config: pytest.Config, parts: frozenset[str]) -> list[dict[str, str]]:
    """Arguments narrower than the part folders, or selected parts whose folder no argument
    collects (``conformance run`` always passes whole part folders)."""
    whole_parts: set[str] = set()
    narrower: list[str] = []
    for arg in config.args:
        found = _suite_location(str(arg), Path(config.invocation_params.dir))
        if found is None:
            continue
        tail, path = found
        if path == SUITES_DIR and not tail:
            return []
        relative = path.relative_to(SUITES_DIR)
        if len(relative.parts) == 1 and not tail:
            whole_parts.add(relative.parts[0])
        else:
            narrower.append(relative.as_posix() + tail)
    missing = [p for p in PARTS if p in parts and p not in whole_parts]
    narrower = [n for n in narrower if n.split("/", 1)[0] not in whole_parts]
    if not (narrower or missing):
        return []
    detail = ", ".join(narrower) if narrower else "no test path"
    if missing:
        detail += f"; the folders of {', '.join(missing)} are not collected whole"
    return [{"by": "paths", "detail": detail}]


def _declared_waivers(config: pytest.Config) -> list[dict[str, Any]]:
    from conformance.reporting.waivers import PLUGIN_NAME as WAIVERS
    from conformance.reporting.waivers import WaiverPlugin

    plugin = config.pluginmanager.get_plugin(WAIVERS)
    return [w.to_dict() for w in plugin.waivers] if isinstance(plugin, WaiverPlugin) else []


def _profile_facts(config: pytest.Config, profile: TargetProfile | None) -> dict[str, Any] | None:
    """What the profile declares, as facts a certificate may show: no secret."""
    if profile is None:
        return None
    hooks = [
        name
        for name in hookspecs.ADAPTER_HOOKS
        if getattr(config.hook, name, None) is not None
        and getattr(config.hook, name).get_hookimpls()
    ]
    return {
        "environment": profile.environment,
        "embedded": profile.embedded,
        "embedded_args": profile.embedded_args if profile.embedded else None,
        "platform_modes": {
            "regulated": profile.regulated,
            "skip_verification_paperwork": profile.skip_verification_paperwork,
        },
        "features": list(profile.features),
        "credentials": {
            "primary": bool(profile.client_id and profile.client_secret),
            "second_platform": profile.second is not None,
            "production_keys": profile.production is not None,
        },
        "settings": {
            "webhook_public_key": profile.webhook_public_key is not None,
            "wallet_rp_id": profile.wallet_rp_id is not None,
            "wallet_origin": profile.wallet_origin is not None,
            "wallet_oidc_issuers": len(profile.wallet_oidc_issuers),
            "wallet_enclave_public_key": profile.wallet_enclave_public_key is not None,
        },
        "adapter": profile.adapter,
        "adapter_hooks": hooks,
        "allow_production_writes": profile.allow_production_writes,
        "writes_allowed": profile.writes_allowed,
    }


# -- the same, read from a command line before anything runs ----------------------------------

# pytest's short options that take a value (``-kEXPR``, ``-k EXPR``, ``-vk EXPR``)
_SHORT_WITH_VALUE = frozenset("kmcopWrn")
_LONG_WITH_VALUE = ("--deselect", "--ignore", "--ignore-glob", "--maxfail")
_LONG_FLAGS = {
    "--lf": "--lf", "--last-failed": "--lf", "--sw": "--sw", "--stepwise": "--sw",
    "--sw-skip": "--sw", "--stepwise-skip": "--sw", "--exitfirst": "-x",
    "--co": "--collect-only", "--collect-only": "--collect-only",
    "--collectonly": "--collect-only",
}  # fmt: skip


def narrowing_in_arguments(
    parts: str | None, pytest_args: Sequence[str], environ: Mapping[str, str]
) -> list[dict[str, str]]:
    """How a ``conformance run`` command line narrows the selection (the same entries as
    the plan's ``narrowed``), as far as its arguments tell; the run's plan tells the rest."""
    given = parts or environ.get(opt.PARTS_ENV) or ""
    chosen = frozenset(p.strip() for p in given.split(",") if p.strip())
    values: dict[str, list[str]] = {}
    flags: list[str] = []
    args = list(pytest_args)
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            if name in _LONG_WITH_VALUE:
                if not eq and index < len(args):
                    value, index = args[index], index + 1
                values.setdefault(name, []).append(value)
            elif name in _LONG_FLAGS:
                flags.append(_LONG_FLAGS[name])
        elif arg.startswith("-") and len(arg) > 1:
            for position, letter in enumerate(arg[1:], 2):
                if letter in _SHORT_WITH_VALUE:
                    value = arg[position:].removeprefix("=")
                    if not value and index < len(args):
                        value, index = args[index], index + 1
                    values.setdefault("-" + letter, []).append(value)
                    break
                if letter == "x":
                    flags.append("-x")
    maxfail = max((_int(v) for v in values.get("--maxfail", [])), default=0)
    found = _option_narrowing(
        parts=chosen or None,
        keyword=" and ".join(values.get("-k", [])),
        markexpr=" and ".join(values.get("-m", [])),
        deselect=values.get("--deselect", []),
        ignore=[*values.get("--ignore", []), *values.get("--ignore-glob", [])],
        maxfail=max(maxfail, 1 if "-x" in flags else 0),
        reselect=[f for f in ("--lf", "--sw") if f in flags],
        collect_only="--collect-only" in flags,
    )
    if given and not parts and found and found[0]["by"] == "--parts":
        found[0]["detail"] += f" (from {opt.PARTS_ENV})"
    return found


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return 0
