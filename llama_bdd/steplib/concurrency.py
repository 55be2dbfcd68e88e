"""Concurrent requests: sent in the background (aiohttp), gathered later with a deadline."""

from __future__ import annotations

from typing import Any

from llama_bdd.client.completion import (assert_n_tokens_predicted, completion_headers, completion_payload,
                                         native_completion)
from llama_bdd.client.openai_api import chat_payload, oai_chat_result, raw_headers

from .core import expect, state_of, step
from .core.scenario import gather_results, queued_prompts, send_in_background


@step("concurrent completion requests")
def step_concurrent_completions(context: Any) -> None:
    """Send every queued prompt to ``/completion`` at once, in the background (streamed if streaming is enabled).

        Given concurrent completion requests
    """
    draft = state_of(context).request
    for prompt in queued_prompts(context):
        send_in_background(context, "/completion", completion_payload(draft, prompt), completion_headers(draft),
                           native_completion)


def _concurrent_oai(context: Any, path: str) -> None:
    draft = state_of(context).request
    streaming = draft.streaming
    for prompt in queued_prompts(context):
        send_in_background(context, path, chat_payload(draft, prompt), raw_headers(draft),
                           lambda exchange: oai_chat_result(exchange, streaming))


@step("concurrent OAI completions requests")
def step_concurrent_oai(context: Any) -> None:
    """Send every queued user prompt to ``/v1/chat/completions`` at once (raw HTTP, aiohttp).

        Given concurrent OAI completions requests
    """
    _concurrent_oai(context, "/v1/chat/completions")


@step("concurrent OAI completions requests no v1")
def step_concurrent_oai_no_v1(context: Any) -> None:
    """As above, on ``/chat/completions``.

        Given concurrent OAI completions requests no v1
    """
    _concurrent_oai(context, "/chat/completions")


def _all_prompts_predicted(context: Any, expected_predicted_n: int | None) -> None:
    results = gather_results(context)
    expect(len(results) > 0, "no concurrent request was sent")
    for result in results:
        assert_n_tokens_predicted(result, expected_predicted_n)


@step("all prompts are predicted")
def step_all_prompts_predicted(context: Any) -> None:
    """Every concurrent request succeeded with non-empty content.

        Then all prompts are predicted
    """
    _all_prompts_predicted(context, None)


@step("all prompts are predicted with {n_predict:d} tokens")
def step_all_prompts_predicted_n(context: Any, n_predict: int) -> None:
    """Every concurrent request succeeded with exactly N tokens.

        Then all prompts are predicted with 64 tokens
    """
    _all_prompts_predicted(context, n_predict)
