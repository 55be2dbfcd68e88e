"""Prometheus metrics: ``/metrics`` parsed with ``prometheus_client``, counters compared before and after.

Which metrics a server exports depends on its build, so the expected set is decided from the build number
(``--version``): ``kv_cache_usage_ratio``, which the original suite checked, was dropped from later builds,
and later builds added others. A missing metric is reported with the build range it is expected from.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from prometheus_client import parser

from llama_bdd.harness.capabilities import Capabilities
from llama_bdd.harness.http import Exchange

from . import completion  # noqa: F401 - completion steps first (their results feed "grew by the completion's ...")
from .api import field_at, _MISSING
from .core import expect, expect_equal, expect_status, state_of, step
from .lifecycle import suite_of

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
    build = capabilities.build_number if capabilities else None
    if build is not None and build <= LAST_BUILD_WITH_KV_CACHE_RATIO:
        return (*CORE_METRICS, "llamacpp:kv_cache_usage_ratio")
    if build is not None and build >= VERIFIED_BUILD:
        return (*CORE_METRICS, *METRICS_OF_VERIFIED_BUILD)
    return CORE_METRICS


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


@dataclass
class MetricsState:
    """What the metrics steps remember between steps of a scenario."""

    noted: MetricsSnapshot | None = None  # /metrics as it was when 'the metrics are noted'


def read_metrics(context: Any) -> dict[str, Any]:
    """GET /metrics, check its content type, parse it: {family name: family}."""
    return _families(_get_metrics(context))


def _get_metrics(context: Any) -> Exchange:
    state = state_of(context)
    exchange = expect_status(state.client().get("/metrics", headers=state.request.auth_headers()), 200)
    content_type = exchange.header("Content-Type") or ""
    expect(content_type.startswith(PROMETHEUS_CONTENT_TYPE),
           f"/metrics Content-Type should start with '{PROMETHEUS_CONTENT_TYPE}', got '{content_type}'", exchange)
    return exchange


def _families(exchange: Exchange) -> dict[str, Any]:
    families = {}
    try:
        for family in parser.text_string_to_metric_families(exchange.response_text):
            families[family.name] = family
            for sample in family.samples:  # counters are parsed as "<name>" with "<name>_total" samples
                families.setdefault(sample.name, family)
    except ValueError as error:
        raise AssertionError(f"/metrics is not valid Prometheus text: {error}\n{exchange.describe()}") from None
    return families


def snapshot(context: Any) -> MetricsSnapshot:
    """Read ``/metrics`` once: every unlabelled sample, by the name the server wrote."""
    exchange = _get_metrics(context)
    families = _families(exchange)  # validates the text as Prometheus exposition format
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


def noted_metrics(context: Any) -> MetricsSnapshot:
    before = state_of(context).part(MetricsState).noted
    expect(isinstance(before, MetricsSnapshot), "the metrics were not noted before: add 'Given the metrics are noted'")
    return before


def expect_growth(context: Any, name: str, expected: float, why: str) -> None:
    """Poll ``/metrics`` (bounded) until ``name`` grew by ``expected`` since it was noted; never past it."""
    capabilities = suite_of(context).capabilities
    before = noted_metrics(context).value(name, capabilities)
    deadline = time.monotonic() + COUNTER_SETTLE_TIMEOUT
    while True:
        now = snapshot(context)
        grown = now.value(name, capabilities) - before
        if grown == expected:
            return
        if grown > expected or time.monotonic() > deadline:
            raise AssertionError(f"{name} grew by {grown:g} (from {before:g}), expected {expected:g} ({why})\n"
                                 f"{now.exchange.describe()}")
        time.sleep(0.1)


@step("prometheus metrics are exposed")
def step_metrics_are_exposed(context: Any) -> None:
    """``/metrics`` answers Prometheus text that parses and has every metric this build should export.

        Then prometheus metrics are exposed
    """
    exchange = _get_metrics(context)
    families = _families(exchange)
    capabilities = suite_of(context).capabilities
    for name in expected_metrics(capabilities):
        expect(name in families and len(families[name].samples) > 0,
               f"metric {name} is missing from /metrics: expected because {why_expected(name, capabilities)}; "
               f"exported: {', '.join(sorted(families)) or 'none'}", exchange)


@step("the metrics are noted")
def step_metrics_noted(context: Any) -> None:
    """Read ``/metrics`` now, so that later steps can say how much each counter grew.

        Given the metrics are noted
    """
    state_of(context).part(MetricsState).noted = snapshot(context)


@step("the metric {name} grew by {amount:d}", fresh_server=True)
def step_metric_grew_by(context: Any, name: str, amount: int) -> None:
    """The counter grew by exactly N since the metrics were noted.

        Then the metric llamacpp:tokens_predicted_total grew by 8
    """
    expect_growth(context, name, amount, "as the scenario says")


@step("the metric {name} grew by the last completion's {path}", fresh_server=True)
def step_metric_grew_by_field(context: Any, name: str, path: str) -> None:
    """The counter grew by exactly the value of a field of the last completion's answer (dotted path).

        Then the metric llamacpp:prompt_tokens_total grew by the last completion's timings.prompt_n
    """
    completions = state_of(context).results.completions
    expect(bool(completions) and completions[-1].raw is not None,
           "no completion answer to read: send 'a completion request with no api error' first")
    last = completions[-1]
    value = field_at(last.raw, path)
    expect(value is not _MISSING and isinstance(value, (int, float)),
           f"the last completion's answer has no number at '{path}'", last.exchange)
    expect_growth(context, name, value, f"the last completion's {path}")


@step("the metric {name} is {value:g}")
def step_metric_is(context: Any, name: str, value: float) -> None:
    """The metric's current value (a gauge, read now).

        Then the metric llamacpp:requests_processing is 1
    """
    now = snapshot(context)
    expect_equal(now.value(name, suite_of(context).capabilities), value, f"metric {name}", now.exchange)


@step("the metric {name} becomes {value:g}")
def step_metric_becomes(context: Any, name: str, value: float) -> None:
    """Poll ``/metrics`` until the gauge has this value; fail if the background requests all finish first.

    A request waits in the task queue a moment before the server defers it (or gives it a slot), so the
    gauges can lag the requests by a scheduler step.

        Then the metric llamacpp:requests_deferred becomes 1
    """
    state = state_of(context)
    capabilities = suite_of(context).capabilities
    deadline = time.monotonic() + GAUGE_WAIT_TIMEOUT
    while True:
        background_done = bool(state.results.pending) and all(p.future.done() for p in state.results.pending)
        now = snapshot(context)
        current = now.value(name, capabilities)
        if current == value:
            return
        if background_done or time.monotonic() > deadline:
            why = "every background request finished" if background_done else f"{GAUGE_WAIT_TIMEOUT:.0f}s passed"
            raise AssertionError(f"metric {name} is {current:g}, expected it to become {value:g} before {why}\n"
                                 f"{now.exchange.describe()}")
        time.sleep(0.05)

