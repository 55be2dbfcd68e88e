"""Speculative decoding: a draft model or a draft-free n-gram type; the checks are in ``llama_bdd.client.speculative``.

Sending, and comparing with a server without speculation, use the completion and server steps.
"""

from __future__ import annotations

from typing import Any

from llama_bdd.client import speculative as spec_client
from llama_bdd.harness.errors import HarnessError

from .core import build_known_from, expect, lifecycle, server_version, skip_scenario, state_of, step, suite_of
from .core.scenario import last_completion


def _counters(context: Any) -> spec_client.SpeculationCounters | None:
    """The speculation counters of /metrics; None, with the scenario skipped, when the server exports none
    of them and is not a build known to export them."""
    state = state_of(context)
    exchange = state.client().get("/metrics", headers=state.request.auth_headers())
    state.results.last = exchange
    expect(exchange.status == 200, "/metrics did not answer 200: add 'Given prometheus compatible metrics exposed'",
           exchange)
    if not spec_client.exports_counters(exchange) and not build_known_from(context, spec_client.VERIFIED_BUILD):
        skip_scenario(context, f"llama-server {server_version(context)} exports none of the speculation counters "
                               f"({', '.join(spec_client.COUNTERS)}); builds from b{spec_client.VERIFIED_BUILD} on do")
        return None
    return spec_client.speculation_counters(exchange)


def _spec_type_choices(context: Any) -> tuple[str, ...] | None:
    capabilities = suite_of(context).capabilities
    return capabilities.choices("--spec-type") if capabilities else None


# ----------------------------------------------------------------------------------------------
# configuration
# ----------------------------------------------------------------------------------------------

@step("speculative decoding with the default model as its own draft")
def step_self_draft(context: Any) -> None:
    """``--spec-type draft-simple --model-draft`` the default model: the model drafts for itself (only
    ``--model-draft`` where the server's ``--help`` offers no draft-simple type).

        Given speculative decoding with the default model as its own draft
    """
    options = spec_client.draft_model_options(str(suite_of(context).default_model), _spec_type_choices(context))
    state_of(context).config.options.update(options)


@step("speculative decoding with the draft model {path}")
def step_draft_model(context: Any, path: str) -> None:
    """Speculative decoding with this draft model file, as ``... as its own draft`` configures it.

        Given speculative decoding with the draft model /nonexistent/draft.gguf
    """
    state_of(context).config.options.update(spec_client.draft_model_options(path, _spec_type_choices(context)))


@step("speculative decoding of type {types}")
def step_spec_type(context: Any, types: str) -> None:
    """``--spec-type``: one type or several, comma-separated (``ngram-simple``, ``ngram-mod``, ...).

    A type the server's ``--help`` does not offer, or several where it takes one, skips the scenario
    with what the help says (and fails on b11434 or later, which offer them all).

        Given speculative decoding of type ngram-cache
    """
    capabilities = suite_of(context).capabilities
    refused = capabilities.refuses_value("--spec-type", types) if capabilities else None
    if refused:
        expect(not build_known_from(context, spec_client.VERIFIED_BUILD),
               f"{refused}: builds from b{spec_client.VERIFIED_BUILD} on offer it")
        skip_scenario(context, refused)
        return
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
    counters = _counters(context)
    if counters is not None:
        spec_client.expect_counters_match(counters, [answer])


@step("every draft held between {n_min:d} and {n_max:d} tokens", fresh_server=True)
def step_every_draft_between(context: Any, n_min: int, n_max: int) -> None:
    """From ``/metrics``: n-min x drafts <= drafted tokens <= n-max x drafts, the accepted tokens are counted
    for exactly n-max draft positions, and they add up to the accepted total.

        Then every draft held between 1 and 2 tokens
    """
    counters = _counters(context)
    if counters is not None:
        spec_client.expect_draft_sizes(counters, n_min, n_max)


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
