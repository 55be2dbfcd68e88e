"""Prometheus metrics: ``/metrics`` parsed with ``prometheus_client``."""

from __future__ import annotations

from typing import Any

from prometheus_client import parser

from llama_bdd.harness.capabilities import Capabilities

from .core import expect, expect_status, state_of, step
from .lifecycle import suite_of

PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4"
# Exported by every server build this suite knows; kv_cache_usage_ratio (which the original suite checked)
# was dropped from later builds, so it is expected only from builds that still had it.
CORE_METRICS = ("llamacpp:prompt_tokens_total", "llamacpp:tokens_predicted_total",
                "llamacpp:requests_processing", "llamacpp:requests_deferred")
LAST_BUILD_WITH_KV_CACHE_RATIO = 4000


def expected_metrics(capabilities: Capabilities | None) -> tuple[str, ...]:
    build = capabilities.build_number if capabilities else None
    if build is not None and build <= LAST_BUILD_WITH_KV_CACHE_RATIO:
        return (*CORE_METRICS, "llamacpp:kv_cache_usage_ratio")
    return CORE_METRICS


def read_metrics(context: Any) -> dict[str, Any]:
    """GET /metrics, check its content type, parse it: {family name: family}."""
    exchange = expect_status(state_of(context).client().get("/metrics"), 200)
    content_type = exchange.header("Content-Type") or ""
    expect(content_type.startswith(PROMETHEUS_CONTENT_TYPE),
           f"/metrics Content-Type should start with '{PROMETHEUS_CONTENT_TYPE}', got '{content_type}'", exchange)
    families = {}
    try:
        for family in parser.text_string_to_metric_families(exchange.response_text):
            families[family.name] = family
            for sample in family.samples:  # counters are parsed as "<name>" with "<name>_total" samples
                families.setdefault(sample.name, family)
    except ValueError as error:
        raise AssertionError(f"/metrics is not valid Prometheus text: {error}\n{exchange.describe()}") from None
    return families


@step("prometheus metrics are exposed")
def step_metrics_are_exposed(context: Any) -> None:
    """``/metrics`` answers Prometheus text that parses and has every metric this build should export.

        Then prometheus metrics are exposed
    """
    families = read_metrics(context)
    for name in expected_metrics(suite_of(context).capabilities):
        expect(name in families and len(families[name].samples) > 0,
               f"metric {name} is missing from /metrics (exported: {', '.join(sorted(families)) or 'none'})")
