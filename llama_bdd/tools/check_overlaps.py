"""Fail when one step text is matched by more than one step pattern.

behave takes the first registered pattern that matches a step, so two overlapping patterns make the
meaning of a phrase depend on the order the step modules were imported in. This check makes order
irrelevant: every step text below must be matched by exactly one registered definition.

The texts checked:
- every step of every feature file (``features/``, ``tests/seed_features/``, ``tests/final_era_features/``);
- every example line of every step docstring (the catalog's examples);
- for every pattern, sample texts made from the pattern itself (each placeholder filled with a few
  typical values), so that a new pattern that swallows an old phrase is caught even when no feature
  uses the phrase yet.
"""

from __future__ import annotations

import inspect
import re
import sys
from dataclasses import dataclass

from behave import step_registry
from behave.parser import parse_file

from llama_bdd.tools.catalog import KEYWORDS, ROOT, load_step_definitions

FEATURE_DIRS = ("features", "tests/seed_features", "tests/final_era_features")
# what a placeholder is filled with in the sample texts: by its type, several shapes each
_SAMPLES = {"d": ("7", "-1"), "f": ("0.5",), "w": ("word",), "": ("x", "two words", "of 3 tokens", "file x.gguf")}
_PLACEHOLDER = re.compile(r"\{([^{}:]*)(?::([^{}]*))?\}")


@dataclass(frozen=True)
class Overlap:
    text: str
    source: str
    patterns: tuple[str, ...]


def _all_definitions() -> list[object]:
    return [d for group in step_registry.registry.steps.values() for d in group]


def sample_texts(pattern: str) -> list[str]:
    """Texts the pattern matches, made by filling each placeholder with a few typical values."""
    texts = [""]
    position = 0
    for match in _PLACEHOLDER.finditer(pattern):
        literal = pattern[position:match.start()].replace("{{", "{").replace("}}", "}")
        values = _SAMPLES.get(match.group(2) or "", _SAMPLES[""])
        texts = [text + literal + value for text in texts for value in values]
        position = match.end()
    tail = pattern[position:].replace("{{", "{").replace("}}", "}")
    return [text + tail for text in texts]


def _feature_step_texts() -> list[tuple[str, str]]:
    texts = []
    for directory in FEATURE_DIRS:
        for path in sorted((ROOT / directory).glob("**/*.feature")):
            feature = parse_file(str(path))
            scenarios = list(feature.walk_scenarios(with_outlines=True)) if feature else []
            steps = list(feature.background.steps) if feature and feature.background else []
            for scenario in scenarios:
                steps += scenario.steps
                for example in getattr(scenario, "examples", []) or []:
                    for row in example.table or []:
                        for step in scenario.steps:
                            name = step.name
                            for heading, cell in zip(row.headings, row.cells):
                                name = name.replace(f"<{heading}>", cell)
                            texts.append((name, f"{path.relative_to(ROOT)}:{step.line}"))
            texts += [(step.name, f"{path.relative_to(ROOT)}:{step.line}") for step in steps if "<" not in step.name]
    return texts


def _docstring_texts(groups: list[list[object]]) -> list[tuple[str, str]]:
    texts = []
    for definitions in groups:
        function = inspect.unwrap(definitions[0].func)
        for line in (function.__doc__ or "").splitlines():
            stripped = line.strip()
            if stripped.startswith(KEYWORDS):
                where = f"docstring of {function.__module__}.{function.__name__}"
                texts.append((stripped.split(" ", 1)[1].strip(), where))
    return texts


def find_overlaps() -> list[Overlap]:
    groups = load_step_definitions()
    definitions = _all_definitions()
    texts = _feature_step_texts() + _docstring_texts(groups)
    for group in groups:
        for definition in group:
            texts += [(text, f"sample of '{definition.pattern}'") for text in sample_texts(definition.pattern)]
    overlaps, seen = [], set()
    for text, source in texts:
        if text in seen:
            continue
        seen.add(text)
        matching = sorted({d.pattern for d in definitions if d.match(text) is not None})
        if len(matching) > 1:
            overlaps.append(Overlap(text, source, tuple(matching)))
    return overlaps


def main() -> int:
    overlaps = find_overlaps()
    if overlaps:
        print(f"{len(overlaps)} step text(s) match more than one pattern (rename or narrow one of them):",
              file=sys.stderr)
        for overlap in overlaps:
            print(f"  '{overlap.text}' ({overlap.source})", file=sys.stderr)
            for pattern in overlap.patterns:
                print(f"      matched by '{pattern}'", file=sys.stderr)
        return 1
    print("no step text matches more than one pattern")
    return 0


if __name__ == "__main__":
    sys.exit(main())
