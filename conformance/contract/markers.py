"""The suite's markers, and what they imply at collection: part, labels, selection and skips.

- ``@requirement("ID", ...)``: the catalogue ids a test checks (every suite test has one).
- ``@feature("rule-based-accounts")``: runs only when the profile enables the feature.
- ``@needs_adapter_hook(hookspecs.pytest_conformance_...)`` (mark ``adapter_hook``): runs
  only when the adapter implements the hook.
- ``@writes``: moves money or changes configuration; off in production unless allowed.
- ``@resource("PlatformConfig")``: the Allure feature; defaults from the requirement's area.
- ``@starts_early("fixture")``: that session fixture is set up when the run starts; the
  test runs last (``scheduling.py``).
- ``@reads_the_run``: the test reads what the whole run caused (every webhook delivery);
  it runs after all the others (``scheduling.py``).

A test's spec part is the folder it lives in (``suites/<part>/``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NoReturn

import pytest

from conformance.contract.requirements import PARTS, default_catalogue, receiver_catalogue
from conformance.ground import hookspecs
from conformance.ground.datafiles import RECEIVER_SUITE_DIR
from conformance.ground.profile import TargetProfile

__all__ = [
    "MARKERS",
    "PART_SECTIONS",
    "allure_epic",
    "apply_item_labels",
    "check_adapter_hook_marks",
    "item_part",
    "item_requirements",
    "needs_adapter_hook",
    "register_markers",
    "select_parts",
    "skip_for_missing_hook",
    "skip_reason",
    "skip_unless_sandbox",
]

PART_PROPERTY = "conformance_part"
REQUIREMENTS_PROPERTY = "conformance_requirements"
ADVISORY_PROPERTY = "conformance_advisory"
REQUESTS_PROPERTY = "conformance_requests"
# The part of the receiver check's tests: a platform's duties toward webhooks (§5, §6).
RECEIVER_PART = "webhooks"
# The words of every skip for sandbox behaviour in production (skip_reasons.py reads them).
SANDBOX_ONLY = "sandbox behaviour, which a production environment does not have"

MARKERS = {
    "requirement(*ids)": "catalogue ids of the interface requirements this test checks",
    "feature(name)": "run only when the target profile enables this feature",
    "adapter_hook(spec)": "run only when the adapter implements this hook (a hookspecs function)",
    "writes": "moves money or changes configuration; off in production unless allowed",
    "resource(name)": "the resource this test is about (Allure feature)",
    "starts_early(*fixtures)": "session fixtures set up at the start of the run (what must "
    "expire); the test itself runs last, so its wait overlaps with the rest",
    "runs_long": "takes seconds (a state machine, a property test whose examples' requests go "
    "one after another): runs first among the ordinary tests, and under xdist each heads "
    "another worker's share, so parallel workers end together",
    "reads_the_run": "reads what the whole run caused (every webhook delivery): runs after "
    "every other test",
}

# Allure feature per catalogue area, for tests without an explicit resource marker.
_AREA_RESOURCE = {
    "common": "Conventions",
    "config": "PlatformConfig",
    "auth-basic": "Authentication",
    "versioning": "Versioning",
    "webhooks-core": "Webhook",
    "webhook-receiver": "Webhook receiver",
    "errors-core": "Error",
    "customers": "Customer",
    "agreements": "Customer",
    "contact-verification": "Customer",
    "kyc-link": "Customer",
    "beneficial-owners": "BeneficialOwner",
    "documents": "Document",
    "verification": "Verification",
    "internal-accounts": "InternalAccount",
    "rule-based-accounts": "InternalAccount",
    "external-accounts": "ExternalAccount",
    "quotes": "Quote",
    "fees": "Quote",
    "transactions": "Transaction",
    "funding": "Transaction",
    "refunds": "Transaction",
    "sca": "Quote",
    "wallet-auth": "Authentication",
    "cards": "CardTransaction",
}


def register_markers(config: pytest.Config) -> None:
    for signature, description in MARKERS.items():
        config.addinivalue_line("markers", f"{signature}: {description}")


def item_part(item: pytest.Item) -> str | None:
    """The spec part a test belongs to: the folder under ``suites/``; the tests of
    ``conformance receiver`` (``receiver_suite/``) check the platform's side of webhooks."""
    if RECEIVER_SUITE_DIR in item.path.parents:
        return RECEIVER_PART
    parts = item.path.parts
    for index, name in enumerate(parts[:-1]):
        if name == "suites" and parts[index + 1] in PARTS:
            return parts[index + 1]
    return None


def item_requirements(item: pytest.Item) -> tuple[str, ...]:
    ids: list[str] = []
    for mark in item.iter_markers("requirement"):
        ids.extend(str(arg) for arg in mark.args)
    return tuple(dict.fromkeys(ids))


def _resource(item: pytest.Item, requirement_ids: Iterable[str]) -> str | None:
    mark = item.get_closest_marker("resource")
    if mark and mark.args:
        return str(mark.args[0])
    for catalogue in (default_catalogue(), receiver_catalogue()):
        for rid in requirement_ids:
            if rid in catalogue:
                return _AREA_RESOURCE.get(catalogue.get(rid).area, catalogue.get(rid).area)
    return None


# The interface's section of each part, in the interface's order (§2 Resources and their
# fields ... §9 Versioning).
PART_SECTIONS: dict[str, str] = dict(zip(PARTS, ("§2", "§3", "§4", "§5", "§6", "§7", "§8", "§9"),
                                         strict=True))  # fmt: skip


def allure_epic(part: str) -> str:
    """A part's Allure epic, "§5 auth": sorted by name, the parts keep the interface's order."""
    return f"{PART_SECTIONS[part]} {part}"


def apply_item_labels(item: pytest.Item, part: str) -> None:
    """Attach part and requirement ids as user properties and Allure labels.

    Allure's tree shows a test under every value of a grouping label it carries, and adds
    each group's count up from its children: a test with three stories was shown and counted
    three times. So a test has one epic (its part), one feature (its resource) and one story
    (the first requirement it declares); every requirement id it checks is a tag."""
    ids = item_requirements(item)
    item.user_properties.append((PART_PROPERTY, part))
    item.user_properties.append((REQUIREMENTS_PROPERTY, ",".join(ids)))
    item.add_marker(pytest.mark.allure_label(allure_epic(part), label_type="epic"))
    resource = _resource(item, ids)
    if resource:
        item.add_marker(pytest.mark.allure_label(resource, label_type="feature"))
    if ids:
        item.add_marker(pytest.mark.allure_label(ids[0], label_type="story"))
    for rid in ids:
        item.add_marker(pytest.mark.allure_label(rid, label_type="tag"))


def select_parts(items: list[pytest.Item], parts: frozenset[str], config: pytest.Config) -> None:
    """Deselect suite tests outside the chosen parts."""
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        part = item_part(item)
        (drop if part is not None and part not in parts else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def needs_adapter_hook(*specs: hookspecs.HookSpec) -> pytest.MarkDecorator:
    """The ``adapter_hook`` mark for ``specs`` (``hookspecs`` functions, by attribute): the
    test runs only when the target's adapter implements every one of those hooks."""
    for spec in specs:
        hookspecs.hook_name(spec)  # not a hook of hookspecs: TypeError where it is written
    return pytest.mark.adapter_hook.with_args(*specs)


def _missing_hook_reason(name: str) -> str:
    return (
        f"needs adapter hook '{name}', which the interface does not show "
        "(give --adapter / CONFORMANCE_ADAPTER a module implementing it)"
    )


def skip_for_missing_hook(spec: hookspecs.HookSpec) -> NoReturn:
    """Skip the running test, which needs the adapter hook ``spec`` that no adapter
    implements (for helpers that learn it only when called; tests use the mark)."""
    pytest.skip(_missing_hook_reason(hookspecs.hook_name(spec)))


def _hook_names(mark: pytest.Mark) -> list[str]:
    """The hooks an ``adapter_hook`` mark names (checked by :func:`check_adapter_hook_marks`)."""
    return [hookspecs.hook_name(spec) for spec in mark.args]


def check_adapter_hook_marks(items: Iterable[pytest.Item]) -> None:
    """Every ``adapter_hook`` mark holds hooks of ``hookspecs`` by attribute; a hook named by
    string (spelt right or not) is a usage error, so no test depends on a spelling."""
    for item in items:
        for mark in item.iter_markers("adapter_hook"):
            for spec in mark.args:
                try:
                    hookspecs.hook_name(spec)
                except TypeError:
                    raise pytest.UsageError(
                        f"{item.nodeid}: @adapter_hook names {spec!r}; name the hook by "
                        "attribute of conformance.ground.hookspecs: "
                        "markers.needs_adapter_hook(hookspecs.NAME)"
                    ) from None


def skip_unless_sandbox(profile: TargetProfile, what: str) -> None:
    """Skip the running test against a production target: ``what`` is sandbox behaviour
    (§4 Sandbox behaviours)."""
    if profile.environment != "sandbox":
        pytest.skip(f"{what}: {SANDBOX_ONLY} (the profile's environment is production)")


def skip_reason(item: pytest.Item, profile: TargetProfile, config: pytest.Config) -> str | None:
    """Why the profile cannot run this test, naming the missing setting; None if it can."""
    for mark in item.iter_markers("feature"):
        for name in mark.args:
            if name not in profile.features:
                return (
                    f"feature '{name}' is not enabled for the target "
                    f"(add it to --features / CONFORMANCE_FEATURES / profile key 'features')"
                )
    for mark in item.iter_markers("adapter_hook"):
        for name in _hook_names(mark):
            impls = config.pluginmanager.hook.__dict__.get(name)
            if impls is None or not impls.get_hookimpls():
                return _missing_hook_reason(name)
    if item.get_closest_marker("writes") and not profile.writes_allowed:
        return (
            "moves money or changes configuration, which is off in production "
            "(opt in with --allow-production-writes true)"
        )
    return None
