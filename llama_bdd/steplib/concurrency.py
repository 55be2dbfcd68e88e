"""Concurrent requests: sent in the background (aiohttp), gathered later with a deadline."""

from __future__ import annotations

import concurrent.futures
import time
from typing import Any, Callable

from llama_bdd.harness.http import Exchange, async_request
from llama_bdd.harness.timing import timed

from . import chat
from .completion import assert_n_tokens_predicted, completion_headers, completion_payload, native_completion
from .core import expect, state_of, step
from .lifecycle import suite_of
from .state import CORS_TEST_ORIGIN, PendingRequest

GATHER_TIMEOUT = 300.0


def send_in_background(context: Any, path: str, payload: Any, headers: dict[str, str],
                       to_result: Callable[[Exchange], Any]) -> None:
    state = state_of(context)
    url = state.client().base_url + path
    future = suite_of(context).loop.submit(async_request("POST", url, payload, headers=headers))
    state.results.pending.append(PendingRequest(future=future, describe=f"POST {path}", to_result=to_result))


def gather_results(context: Any, timeout: float = GATHER_TIMEOUT) -> list[Any]:
    """Wait for every background request (bounded) and convert each answer; they are then no longer pending."""
    state = state_of(context)
    deadline = time.monotonic() + timeout
    exchanges = []
    for request in list(state.results.pending):
        try:
            with timed("http"):
                exchange = request.future.result(timeout=max(0.1, deadline - time.monotonic()))
        except concurrent.futures.TimeoutError:
            # left pending: the end of the scenario cancels it before the server is stopped
            raise AssertionError(f"{request.describe} did not finish within {timeout:.0f}s") from None
        state.results.pending.remove(request)
        state.results.background.append(exchange)
        exchanges.append((request, exchange))
    return [request.to_result(exchange) for request, exchange in exchanges]


def queued_prompts(context: Any) -> list[str]:
    state = state_of(context)
    prompts, state.request.prompts = list(reversed(state.request.prompts)), []
    expect(bool(prompts), "no prompt queued: add 'Given a prompt ...' steps first")
    return prompts


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
    headers = {"Authorization": f"Bearer {draft.user_api_key or chat.NO_KEY}", "Origin": CORS_TEST_ORIGIN}
    streaming = draft.streaming
    for prompt in queued_prompts(context):
        send_in_background(context, path, chat.chat_payload(draft, prompt), headers,
                           lambda exchange: chat.oai_chat_result(exchange, streaming))


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
