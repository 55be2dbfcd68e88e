"""Every phrase of llama.cpp's final behave suite (Nov 2024) stays defined, by exactly one step of the library."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from behave import step_registry

from llama_bdd.tools.catalog import load_step_definitions

sys.path.insert(0, str(Path(__file__).parent))
from final_era_phrases import FINAL_ERA_NEW, FINAL_ERA_PHRASES, SEED_KEPT  # noqa: E402

FEATURES = Path(__file__).parent / "final_era_features"


@pytest.fixture(scope="module")
def definitions() -> list[object]:
    load_step_definitions()
    return [d for group in step_registry.registry.steps.values() for d in group]


def test_the_list_holds_the_59_missing_phrases_and_the_kept_ones() -> None:
    assert len(FINAL_ERA_NEW) == 60  # the 59 of the issue, and the HF model phrase
    assert len(SEED_KEPT) == 43
    assert len({phrase for phrase, _ in FINAL_ERA_PHRASES}) == len(FINAL_ERA_PHRASES)


@pytest.mark.parametrize("phrase,example", FINAL_ERA_PHRASES, ids=[p for p, _ in FINAL_ERA_PHRASES])
def test_phrase_is_defined_once(definitions: list[object], phrase: str, example: str) -> None:
    matching = {d.pattern for d in definitions if d.match(example) is not None}
    assert len(matching) == 1, f"'{example}' (final-era phrase '{phrase}') is matched by {sorted(matching) or 'no step'}"


def test_final_era_features_use_every_phrase() -> None:
    """tests/final_era_features/ exercises each phrase: its example, or the phrase's literal words, appear there."""
    text = "\n".join(path.read_text() for path in FEATURES.glob("*.feature"))
    unused = []
    for phrase, _ in FINAL_ERA_PHRASES:
        words = [part.strip() for part in phrase.replace("}", "{").split("{")[::2] if part.strip()]
        if not all(word in text for word in words):
            unused.append(phrase)
    assert not unused, f"phrases no final-era feature uses: {unused}"
