"""The catalogue keeps the suite honest: named ids exist, and implemented areas are covered."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import conformance.suites
from conformance.contract.requirements import PARTS, default_catalogue

# Areas whose every testable or needs-adapter requirement must have a test by now.
COMPLETE_AREAS = frozenset(
    {
        "config",
        "auth-basic",
        "versioning",
        "errors-core",
        "customers",
        "agreements",
        "contact-verification",
        "kyc-link",
        "beneficial-owners",
        "documents",
        "verification",
        "sandbox",
        "internal-accounts",
        "external-accounts",
        "quotes",
        "fees",
        "transactions",
        "refunds",
        "funding",
        "limits",
        "sca",
        "uma",
        "wallet-auth",
    }
)
# Requirements of started areas that a later slice makes reachable, id -> why not yet,
# listed so the gap stays visible (empty once the money-movement slices landed).
LATER: dict[str, str] = {}


def suite_tests():
    """(part, module name, test name, requirement ids) for every test function of the suites."""
    found = []
    for info in pkgutil.walk_packages(conformance.suites.__path__, "conformance.suites."):
        if not info.name.rsplit(".", 1)[-1].startswith("test_"):
            continue
        module = importlib.import_module(info.name)
        part = info.name.split(".")[2]
        module_marks = getattr(module, "pytestmark", [])
        module_marks = module_marks if isinstance(module_marks, list) else [module_marks]
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if not name.startswith("test_") or function.__module__ != module.__name__:
                continue
            marks = [*module_marks, *getattr(function, "pytestmark", [])]
            ids = [arg for mark in marks if mark.name == "requirement" for arg in mark.args]
            found.append((part, info.name, name, ids))
    return found


def test_every_suite_test_names_known_requirements_of_its_part():
    catalogue = default_catalogue()
    for part, module, name, ids in suite_tests():
        assert part in PARTS, module
        assert ids, f"{module}::{name} declares no requirement"
        for rid in ids:
            assert rid in catalogue, f"{module}::{name} names unknown requirement {rid}"


def test_complete_areas_have_a_test_for_every_testable_requirement():
    tested = {rid for *_, ids in suite_tests() for rid in ids}
    started_areas = {default_catalogue().get(rid).area for rid in tested}
    missing = [
        r.id
        for r in default_catalogue()
        if r.testability in ("testable", "needs-adapter")
        and (r.area in COMPLETE_AREAS or r.area in started_areas)
        and r.id not in tested
        and r.id not in LATER
    ]
    assert not missing, f"requirements without a test: {missing}"


def test_later_requirements_are_still_open():
    """Once a later slice tests one of these, drop it from LATER."""
    tested = {rid for *_, ids in suite_tests() for rid in ids}
    assert not sorted(set(LATER) & tested), "tested ids still listed in LATER"
    assert not sorted(set(LATER) - set(default_catalogue().ids())), "unknown ids in LATER"


def test_the_suite_index_is_every_test_the_modules_define():
    """Waivers are checked against ``suite_index`` (read without importing), whichever parts
    a run collects: it must find exactly what importing the modules finds."""
    from conformance.reporting.suite_index import names_a_suite_test, suite_test_ids

    imported = {
        f"{module.removeprefix('conformance.suites.').replace('.', '/')}.py::{name}"
        for _, module, name, _ in suite_tests()
    }
    assert suite_test_ids() == imported
    some = sorted(imported)[0]
    assert names_a_suite_test(some) and names_a_suite_test(f"conformance/suites/{some}[x-1]")
    assert names_a_suite_test(some.split("/", 1)[1])  # from the module's name on
    assert not names_a_suite_test(some + "_not") and not names_a_suite_test(some[1:])
