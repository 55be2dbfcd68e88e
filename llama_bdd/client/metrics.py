"""Prometheus metrics: ``/metrics`` parsed with ``prometheus_client``, counters and gauges read and waited for.

Which metrics a server exports depends on its build, so the expected set is decided from the build number
(``--version``): ``kv_cache_usage_ratio``, which the original suite checked, was dropped from later builds,
and later builds added others. A missing metric is reported with the build range it is expected from.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

from prometheus_client import parser

from llama_bdd.harness.capabilities import Capabilities
from llama_bdd.harness.http import Exchange, HttpClient

from .checks import expect, expect_status

PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4"
# Exported by every server build this suite knows; kv_cache_usage_ratio (which the original suite checked)
# was dropped from later builds, so it is expected only from builds that still had it.
CORE_METRICS = ("llamacpp:prompt_tokens_total", "llamacpp:tokens_predicted_total",
                "llamacpp:requests_processing", "llamacpp:requests_deferred")
LAST_BUILD_WITH_KV_CACHE_RATIO = 4000
# Metrics seen in the build this suite was written against (b11434), expected from that build on; for
# older builds the suite does not know when each appeared, so it does not insist on them.
VERIFIED_BUILD = 11434
METRICS_OF_VERIFIED_BUILD = (
    "llamacpp:prompt_tokens_cached_total", "llamacpp:prompt_seconds_total",
    "llamacpp:tokens_predicted_seconds_total", "llamacpp:n_decode_total", "llamacpp:n_tokens_max",
    "llamacpp:prompt_tokens_seconds", "llamacpp:predicted_tokens_seconds", "llamacpp:n_busy_slots_per_decode",
)
GAUGE_WAIT_TIMEOUT = 30.0
COUNTER_SETTLE_TIMEOUT = 5.0  # the server folds finished work into its counters between two scheduler steps


def expected_metrics(capabilities: Capabilities | None) -> tuple[str, ...]:
    """The metrics this build must export; an unknown build number is held to the core set only."""
    if capabilities is not None and capabilities.build_at_most(LAST_BUILD_WITH_KV_CACHE_RATIO):
        return (*CORE_METRICS, "llamacpp:kv_cache_usage_ratio")
    if capabilities is not None and capabilities.build_at_least(VERIFIED_BUILD):
        return (*CORE_METRICS, *METRICS_OF_VERIFIED_BUILD)
    return CORE_METRICS


def is_expected(name: str, capabilities: Capabilities | None) -> bool:
    """Whether this build must export ``name``: a metric gated by build is not expected where the build says
    otherwise or is unknown; any other name the scenario uses is."""
    gated = {"llamacpp:kv_cache_usage_ratio", *METRICS_OF_VERIFIED_BUILD}
    return name not in gated or name in expected_metrics(capabilities)


def why_expected(name: str, capabilities: Capabilities | None) -> str:
    """The reason ``name`` is expected from this server, for the message when it is missing."""
    version = capabilities.version if capabilities else "an unknown build"
    if name in CORE_METRICS:
        return f"every build exports it (this server is {version})"
    if name == "llamacpp:kv_cache_usage_ratio":
        return f"builds up to b{LAST_BUILD_WITH_KV_CACHE_RATIO} export it (this server is {version})"
    if name in METRICS_OF_VERIFIED_BUILD:
        return f"builds from b{VERIFIED_BUILD} on export it (this server is {version})"
    return f"the scenario names it (this server is {version})"


@dataclass
class MetricsSnapshot:
    """One parsed ``/metrics`` answer: sample name -> value, and the exchange it came from."""

    samples: dict[str, float]
    exchange: Exchange

    def value(self, name: str, capabilities: Capabilities | None) -> float:
        if name not in self.samples:
            exported = ", ".join(sorted(self.samples)) or "none"
            raise AssertionError(f"metric {name} is missing from /metrics: expected because "
                                 f"{why_expected(name, capabilities)}; exported: {exported}\n"
                                 f"{self.exchange.describe()}")
        return self.samples[name]


def get_metrics(http: HttpClient, headers: dict[str, str] | None = None) -> Exchange:
    """GET /metrics: 200 with the Prometheus text content type."""
    exchange = expect_status(http.get("/metrics", headers=headers or {}), 200)
    content_type = exchange.header("Content-Type") or ""
    expect(content_type.startswith(PROMETHEUS_CONTENT_TYPE),
           f"/metrics Content-Type should start with '{PROMETHEUS_CONTENT_TYPE}', got '{content_type}'", exchange)
    return exchange


def families_of(exchange: Exchange) -> dict[str, Any]:
    """The metric families of a /metrics answer, by family and sample name; invalid text fails."""
    families = {}
    try:
        for family in parser.text_string_to_metric_families(exchange.response_text):
            families[family.name] = family
            for sample in family.samples:  # counters are parsed as "<name>" with "<name>_total" samples
                families.setdefault(sample.name, family)
    except ValueError as error:
        raise AssertionError(f"/metrics is not valid Prometheus text: {error}\n{exchange.describe()}") from None
    return families


def expect_exported(exchange: Exchange, capabilities: Capabilities | None) -> None:
    """Every metric this build should export is there, with a sample."""
    families = families_of(exchange)
    for name in expected_metrics(capabilities):
        expect(name in families and len(families[name].samples) > 0,
               f"metric {name} is missing from /metrics: expected because {why_expected(name, capabilities)}; "
               f"exported: {', '.join(sorted(families)) or 'none'}", exchange)


def snapshot(http: HttpClient, headers: dict[str, str] | None = None) -> MetricsSnapshot:
    """Read ``/metrics`` once: every unlabelled sample, by the name the server wrote."""
    exchange = get_metrics(http, headers)
    families = families_of(exchange)  # validates the text as Prometheus exposition format
    written: dict[str, float] = {}
    for line in exchange.response_text.splitlines():
        parts = line.split()
        if len(parts) == 2 and not line.startswith("#") and "{" not in parts[0]:
            written[parts[0]] = float(parts[1])
    # prometheus_client names a counter sample "<name>_total" even where the server wrote no such suffix
    # (llamacpp:n_tokens_max): keep the names the server wrote, with the values the parser read
    parsed = {sample.name: sample.value for family in families.values() for sample in family.samples
              if not sample.labels}
    samples = {name: parsed.get(name, parsed.get(f"{name}_total", value)) for name, value in written.items()}
    return MetricsSnapshot(samples, exchange)


def wait_for_growth(read: Callable[[], MetricsSnapshot], name: str, before: float, expected: float, why: str,
                    capabilities: Capabilities | None) -> None:
    """Poll (bounded) until ``name`` grew by ``expected`` since ``before``; never past it."""
    deadline = time.monotonic() + COUNTER_SETTLE_TIMEOUT
    while True:
        now = read()
        grown = now.value(name, capabilities) - before
        if grown == expected:
            return
        if grown > expected or time.monotonic() > deadline:
            raise AssertionError(f"{name} grew by {grown:g} (from {before:g}), expected {expected:g} ({why})\n"
                                 f"{now.exchange.describe()}")
        time.sleep(0.1)


def wait_for_gauge(read: Callable[[], MetricsSnapshot], name: str, value: float, capabilities: Capabilities | None,
                   given_up: Callable[[], bool]) -> None:
    """Poll (bounded) until the gauge has this value; ``given_up`` says when it can no longer come."""
    deadline = time.monotonic() + GAUGE_WAIT_TIMEOUT
    while True:
        background_done = given_up()
        now = read()
        current = now.value(name, capabilities)
        if current == value:
            return
        if background_done or time.monotonic() > deadline:
            why = "every background request finished" if background_done else f"{GAUGE_WAIT_TIMEOUT:.0f}s passed"
            raise AssertionError(f"metric {name} is {current:g}, expected it to become {value:g} before {why}\n"
                                 f"{now.exchange.describe()}")
        time.sleep(0.05)
