"""Report touch-ups behave does not do itself: the reason of each skipped scenario in the JUnit XML."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Skip:
    feature: str
    scenario: str
    reason: str


def annotate_junit_skips(directory: Path, skips: list[Skip]) -> None:
    """Give every ``<skipped/>`` of these scenarios a ``message`` with its reason (behave leaves it empty)."""
    if not skips or not directory.is_dir():
        return
    for path in directory.glob("TESTS-*.xml"):
        tree = ElementTree.parse(path)
        changed = False
        for case in tree.iter("testcase"):
            for skip in skips:
                if case.get("name") == skip.scenario and case.get("classname", "").endswith("." + skip.feature):
                    for element in case.findall("skipped"):
                        element.set("message", skip.reason)
                        changed = True
        if changed:
            tree.write(path, encoding="UTF-8", xml_declaration=True)
