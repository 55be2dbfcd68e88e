"""The context window of a slot: prompts that do not fit, and generation that reaches its end.

A slot's context is ``--ctx-size`` divided by ``--parallel`` (llama.cpp rounds it up to a multiple of
256). A prompt of that many tokens or more is rejected with 400 ``exceed_context_size_error``, whether
context shift is on or not: prompts are never truncated. Without ``--context-shift`` (the default)
generation stops when the context is full (``stop_type`` limit, ``truncated`` true); with it, the server
discards half of the context and goes on until ``n_predict``.
"""

from __future__ import annotations

from typing import Any

from llama_bdd.client.completion import native_body, sent_payload

from .core import expect, expect_equal, expect_status, state_of, step
from .core.scenario import last_completion, prompt_tokens
from .core.state import CompletionState


def slot_context_size(context: Any) -> int:
    props = expect_status(state_of(context).client().get("/props"), 200)
    n_ctx = props.body.get("default_generation_settings", {}).get("n_ctx")
    expect(isinstance(n_ctx, int) and n_ctx > 0, "/props reports no default_generation_settings.n_ctx", props)
    return n_ctx


@step("the completion was truncated")
def step_truncated(context: Any) -> None:
    """The last native answer says ``truncated: true`` (the context filled up or was shifted).

        Then the completion was truncated
    """
    result = last_completion(context)
    expect_equal(native_body(result).get("truncated"), True, "truncated", result.exchange)


@step("the completion was not truncated")
def step_not_truncated(context: Any) -> None:
    """The last native answer says ``truncated: false``.

        Then the completion was not truncated
    """
    result = last_completion(context)
    expect_equal(native_body(result).get("truncated"), False, "truncated", result.exchange)


@step("the generation stopped when the context was full")
def step_stopped_at_context_end(context: Any) -> None:
    """Prompt tokens + predicted tokens = the slot's context (``/props``); ``stop_type`` limit.

        Then the generation stopped when the context was full
    """
    result = last_completion(context)
    body = native_body(result)
    n_ctx = slot_context_size(context)
    n_prompt = len(prompt_tokens(context, sent_payload(result)["prompt"]))
    expect_equal(n_prompt + result.predicted_n, n_ctx,
                 f"prompt tokens ({n_prompt}) + predicted tokens ({result.predicted_n}), the slot context",
                 result.exchange)
    expect_equal(body.get("stop_type"), "limit", "stop_type", result.exchange)


@step("the error reports the prompt's token count and the slot context")
def step_error_reports_sizes(context: Any) -> None:
    """An ``exceed_context_size_error`` says ``n_prompt_tokens`` (the prompt's tokens) and ``n_ctx`` (the slot's).

        Then the error reports the prompt's token count and the slot context
    """
    state = state_of(context)
    exchange = state.results.last
    expect(exchange is not None, "no request was sent yet")
    error = exchange.body.get("error", {})
    prompt = state.part(CompletionState).last_payload["prompt"]
    expect_equal(error.get("n_prompt_tokens"), len(prompt_tokens(context, prompt)), "error.n_prompt_tokens", exchange)
    expect_equal(error.get("n_ctx"), slot_context_size(context), "error.n_ctx", exchange)
