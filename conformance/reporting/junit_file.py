"""``junit.xml`` after a stopped run: the test the stop interrupted has no outcome.

pytest's JUnit writer opens a test case when a test's set-up reports, and names it only
when the test's call reports. A test stopped between the two is written as a nameless
``<testcase>`` that CI systems show as a test that passed; it did not finish, so it goes.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from conformance.ground.redaction import write_text

__all__ = ["drop_unfinished_testcases"]


def drop_unfinished_testcases(junit: Path) -> int:
    """Remove the nameless test cases of ``junit``; how many there were (0 when the file
    is missing or not XML: nothing to tidy)."""
    try:
        tree = ET.parse(junit)
    except (OSError, ET.ParseError):
        return 0
    dropped = 0
    for suite in tree.getroot().iter("testsuite"):
        for case in list(suite.findall("testcase")):
            if not case.get("name"):
                suite.remove(case)
                dropped += 1
    if dropped:
        text = ET.tostring(tree.getroot(), encoding="unicode", xml_declaration=True)
        write_text(junit, text)
    return dropped
