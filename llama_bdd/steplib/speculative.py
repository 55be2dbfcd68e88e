"""Speculative decoding: a draft model or a draft-free n-gram type; the checks are in ``llama_bdd.client.speculative``.

Sending, and comparing with a server without speculation, use the completion and server steps.
"""

from __future__ import annotations

from typing import Any

from llama_bdd.client import speculative as spec_client
from llama_bdd.harness.errors import HarnessError

from .core import expect, lifecycle, state_of, step, suite_of
from .core.scenario import last_completion


def _counters(context: Any) -> spec_client.SpeculationCounters:
    state = state_of(context)
    exchange = state.client().get("/metrics", headers=state.request.auth_headers())
    state.results.last = exchange
    expect(exchange.status == 200, "/metrics did not answer 200: add 'Given prometheus compatible metrics exposed'",
           exchange)
    return spec_client.speculation_counters(exchange)


# ----------------------------------------------------------------------------------------------
# configuration
# ----------------------------------------------------------------------------------------------

@step("speculative decoding with the default model as its own draft")
def step_self_draft(context: Any) -> None:
    """``--spec-type draft-simple --model-draft`` the default model: the model drafts for itself.

        Given speculative decoding with the default model as its own draft
    """
    options = spec_client.draft_model_options(str(suite_of(context).default_model))
    state_of(context).config.options.update(options)


@step("speculative decoding of type {types}")
def step_spec_type(context: Any, types: str) -> None:
    """``--spec-type``: one type or several, comma-separated (``ngram-simple``, ``ngram-mod``, ...).

        Given speculative decoding of type ngram-cache
    """
    state_of(context).config.options["--spec-type"] = types


@step("drafts of at most {n_max:d} and at least {n_min:d} tokens")
def step_draft_sizes(context: Any, n_max: int, n_min: int) -> None:
    """``--spec-draft-n-max`` and ``--spec-draft-n-min`` (the draft model's draft sizes).

        Given drafts of at most 2 and at least 1 tokens
    """
    options = state_of(context).config.options
    options["--spec-draft-n-max"] = str(n_max)
    options["--spec-draft-n-min"] = str(n_min)


# ----------------------------------------------------------------------------------------------
# checks
# ----------------------------------------------------------------------------------------------

@step("the completion drafted tokens and some of them were accepted")
def step_drafted_and_accepted(context: Any) -> None:
    """``timings.draft_n`` > 0 and 0 < ``timings.draft_n_accepted`` <= ``draft_n`` in the last native answer.

        Then the completion drafted tokens and some of them were accepted
    """
    spec_client.expect_drafted_and_accepted(last_completion(context))


@step("the completion drafted no token")
def step_drafted_nothing(context: Any) -> None:
    """The last native answer reports no draft (a server without speculation).

        Then the completion drafted no token
    """
    spec_client.expect_nothing_drafted(last_completion(context))


@step("the speculation metrics count the last completion's drafted and accepted tokens", fresh_server=True)
def step_metrics_count_drafts(context: Any) -> None:
    """On a server that answered only the last completion, ``/metrics`` counts as many drafted and accepted
    tokens as its ``timings`` say, accepted <= drafted, and some drafts when tokens were drafted.

        Then the speculation metrics count the last completion's drafted and accepted tokens
    """
    answer = spec_client.draft_timings(last_completion(context))
    spec_client.expect_counters_match(_counters(context), [answer])


@step("every draft held between {n_min:d} and {n_max:d} tokens", fresh_server=True)
def step_every_draft_between(context: Any, n_min: int, n_max: int) -> None:
    """From ``/metrics``: n-min x drafts <= drafted tokens <= n-max x drafts, the accepted tokens are counted
    for exactly n-max draft positions, and they add up to the accepted total.

        Then every draft held between 1 and 2 tokens
    """
    spec_client.expect_draft_sizes(_counters(context), n_min, n_max)


@step('the server refuses to start, its log saying "{text}"')
def step_refuses_to_start(context: Any, text: str) -> None:
    """Start the configured server: it must exit with an error code and say this text in its log.

    A server that starts anyway is stopped, and the step fails.

        Then the server refuses to start, its log saying "unknown speculative type"
    """
    state = state_of(context)
    try:
        if not lifecycle.start_server(context):
            return  # skipped, with the reason
        failure = None
    except HarnessError as error:
        failure = f"{type(error).__name__}: {error}"
    if failure is None and state.server is not None:
        lifecycle.stop_server(context)
    log = state.server_logs[-1].read_text(errors="replace") if state.server_logs else ""
    problem = spec_client.start_refusal(failure, log, text)
    expect(problem is None, problem or "")
