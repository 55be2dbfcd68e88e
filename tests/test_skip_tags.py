"""Tags that skip a scenario with a reason: capabilities, models, and expectations of known builds only."""

from types import SimpleNamespace

from llama_bdd.harness.capabilities import Capabilities
from llama_bdd.steplib.core.hooks import skip_reason


def suite(build_text: str, model_tags=("smollm2-135m",)):
    capabilities = Capabilities.from_help("--metrics   enable\n", build_text)
    return SimpleNamespace(capabilities=capabilities, model_tags=frozenset(model_tags))


def test_build_tags_apply_to_known_builds_from_that_number_on():
    assert skip_reason(suite("version: 11434 (abc)"), {"build.from.11434"}) is None
    older = skip_reason(suite("version: 9093 (abc)"), {"build.from.11434"})
    assert "b11434" in older and "b9093" in older


def test_an_unknown_build_is_not_build_zero_it_skips_saying_so():
    reason = skip_reason(suite("version: 0 (unknown)"), {"build.from.11434"})
    assert "unknown" in reason


def test_model_and_capability_tags_still_skip():
    assert "smollm2-135m" in skip_reason(suite("version: 11434 (abc)", ()), {"model.smollm2-135m"})
    assert skip_reason(suite("version: 11434 (abc)"), {"requires.metrics"}) is None
