"""Native ``/completion`` requests and the checks on generated tokens."""

from __future__ import annotations

import re
from typing import Any

from llama_bdd.harness.http import Exchange

from . import request  # noqa: F401 - request-building steps first
from .core import expect, expect_equal, expect_status, state_of, step
from .state import CORS_TEST_ORIGIN, Completion, RequestDraft


def completion_payload(draft: RequestDraft, prompt: Any) -> dict[str, Any]:
    """The ``/completion`` body the original suite sent, plus any fields the scenario set."""
    return {"prompt": prompt, "n_predict": draft.n_predict if draft.n_predict is not None else -1,
            "seed": draft.effective_seed, **draft.fields}


def completion_headers(draft: RequestDraft) -> dict[str, str]:
    return {"Origin": CORS_TEST_ORIGIN, **draft.auth_headers()}


def native_completion(exchange: Exchange) -> Completion:
    """A successful native completion: 200, CORS echo of the origin, content and timings."""
    expect_status(exchange, 200)
    expect_equal(exchange.header("Access-Control-Allow-Origin"), CORS_TEST_ORIGIN,
                 "Access-Control-Allow-Origin of the completion response", exchange)
    body = exchange.body
    return Completion(content=body["content"], predicted_n=body["timings"]["predicted_n"], exchange=exchange,
                      finish_reason=body.get("stop_type"), raw=body)


def expect_unauthorized(exchange: Exchange) -> None:
    """401 with ``error.type`` ``authentication_error``."""
    expect_status(exchange, 401)
    error = exchange.body.get("error", {})
    expect_equal(error.get("type"), "authentication_error", "error.type of the 401 response", exchange)


def send_completion(context: Any, prompt: Any, expect_api_error: bool) -> Exchange:
    state = state_of(context)
    payload = completion_payload(state.request, prompt)
    state.results.values["last_completion_payload"] = payload
    exchange = state.client().post("/completion", payload, headers=completion_headers(state.request))
    if expect_api_error:
        expect_unauthorized(exchange)
    else:
        state.results.completions.append(native_completion(exchange))
    return exchange


@step("a completion request with {api_error} api error")
def step_completion_request(context: Any, api_error: str) -> None:
    """Send the last queued prompt to ``/completion``; ``raised`` expects a 401 authentication error.

        Given a prompt I believe the meaning of life is
        And   a completion request with no api error
        And   a completion request with raised api error
    """
    if api_error not in ("no", "raised"):
        raise AssertionError(f"'{api_error} api error': say 'no' or 'raised'")
    prompts = state_of(context).request.prompts
    expect(bool(prompts), "no prompt queued: add 'Given a prompt ...' first")
    send_completion(context, prompts.pop(), expect_api_error=api_error == "raised")


@step("the completion request is sent again")
def step_completion_again(context: Any) -> None:
    """Send the previous ``/completion`` body once more, unchanged.

        When the completion request is sent again
    """
    state = state_of(context)
    payload = state.results.values.get("last_completion_payload")
    expect(payload is not None, "no completion request was sent before")
    exchange = state.client().post("/completion", payload, headers=completion_headers(state.request))
    state.results.completions.append(native_completion(exchange))


@step("the last {count:d} completions are identical")
def step_completions_identical(context: Any, count: int) -> None:
    """The last N completions have the same content and token count.

        Then the last 2 completions are identical
    """
    completions = state_of(context).results.completions[-count:]
    expect_equal(len(completions), count, "completions received")
    first = completions[0]
    for other in completions[1:]:
        expect_equal(other.content, first.content, "content of repeated completion", other.exchange)
        expect_equal(other.predicted_n, first.predicted_n, "tokens predicted by repeated completion",
                     other.exchange)


def assert_n_tokens_predicted(completion: Completion, expected_predicted_n: int | None = None,
                              re_content: str | None = None) -> None:
    """Content is non-empty, exactly N tokens were predicted, and the content matches the pattern."""
    expect(len(completion.content) > 0, "no token predicted: the content is empty", completion.exchange)
    if expected_predicted_n is not None:
        expect_equal(completion.predicted_n, expected_predicted_n, "number of tokens predicted",
                     completion.exchange)
    if re_content is not None:
        pattern = "^.*" + re_content.replace("<or>", "|") + ".*$"
        expect(re.match(pattern, completion.content, flags=re.IGNORECASE | re.MULTILINE | re.DOTALL) is not None,
               f"content does not match /{pattern}/:\n```\n{completion.content}\n```", completion.exchange)


def pop_completion(context: Any) -> Completion:
    completions = state_of(context).results.completions
    expect(bool(completions), "no completion result to check: send a request first")
    return completions.pop()


@step("{predicted_n:d} tokens are predicted matching {re_content}")
def step_tokens_predicted_matching(context: Any, predicted_n: int, re_content: str) -> None:
    """The last result has exactly N tokens and its content matches the regex (``<or>`` means ``|``).

        Then 8 tokens are predicted matching (read<or>going)
    """
    assert_n_tokens_predicted(pop_completion(context), predicted_n, re_content)


@step("{predicted_n:d} tokens are predicted")
def step_tokens_predicted(context: Any, predicted_n: int) -> None:
    """The last result has non-empty content of exactly N tokens.

        Then 16 tokens are predicted
    """
    assert_n_tokens_predicted(pop_completion(context), predicted_n)
