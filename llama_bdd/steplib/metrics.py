"""Prometheus metrics steps; parsing, the expected set per build and the waits are in ``llama_bdd.client.metrics``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llama_bdd.client import metrics as metrics_client
from llama_bdd.client.checks import MISSING, field_at
from llama_bdd.client.metrics import MetricsSnapshot

from .core import expect, expect_equal, skip_scenario, state_of, step, suite_of


@dataclass
class MetricsState:
    """What the metrics steps remember between steps of a scenario."""

    noted: MetricsSnapshot | None = None  # /metrics as it was when 'the metrics are noted'


def snapshot(context: Any) -> MetricsSnapshot:
    state = state_of(context)
    return metrics_client.snapshot(state.client(), state.request.auth_headers())


def expect_growth(context: Any, name: str, expected: float, why: str) -> None:
    """``name`` grew by ``expected`` since the metrics were noted (polled, bounded; never past it).

    A metric this build is not known to export (one of b11434's, on an older or unknown build) that is
    absent skips the scenario with that reason instead of failing it.
    """
    capabilities = suite_of(context).capabilities
    before = state_of(context).part(MetricsState).noted
    expect(isinstance(before, MetricsSnapshot), "the metrics were not noted before: add 'Given the metrics are noted'")
    if name not in before.samples and not metrics_client.is_expected(name, capabilities):
        skip_scenario(context, f"metric {name} is not exported by this server and is not expected from it: "
                               f"{metrics_client.why_expected(name, capabilities)}")
        return
    metrics_client.wait_for_growth(lambda: snapshot(context), name, before.value(name, capabilities), expected, why,
                                   capabilities)


@step("prometheus metrics are exposed")
def step_metrics_are_exposed(context: Any) -> None:
    """``/metrics`` answers Prometheus text that parses and has every metric this build should export.

        Then prometheus metrics are exposed
    """
    state = state_of(context)
    exchange = metrics_client.get_metrics(state.client(), state.request.auth_headers())
    metrics_client.expect_exported(exchange, suite_of(context).capabilities)


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
    expect(value is not MISSING and isinstance(value, (int, float)),
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
    pending = state.results.pending
    metrics_client.wait_for_gauge(lambda: snapshot(context), name, value, suite_of(context).capabilities,
                                  given_up=lambda: bool(pending) and all(p.future.done() for p in pending))
