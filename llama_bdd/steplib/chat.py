"""OpenAI-compatible chat completions, through the official ``openai`` client and raw HTTP; ``/apply-template``.

What the answers look like, and the checks on them, are in ``llama_bdd.client.openai_api``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import openai

from llama_bdd.client.answers import OaiCompletion
from llama_bdd.client.checks import expect_unauthorized
from llama_bdd.client.openai_api import (CHAT_ROUTES, chat_messages, chat_payload, generate_with_openai_client,
                                         oai_chat_result, raw_headers, usage_of)
from llama_bdd.harness.http import Exchange

from .core import expect, expect_equal, expect_status, state_of, step
from .core.scenario import last_completion, last_oai_result, pop_prompt, record, send_raw, tokenize


@dataclass
class ChatState:
    """What the chat steps remember between steps of a scenario."""

    # the prompt ``/apply-template`` rendered, the messages it was given, and its exchange
    rendered: tuple[str, list[dict[str, str]], Exchange] | None = None


def chat_with_openai_client(context: Any, user_prompt: str, expect_api_error: bool,
                            v1: bool = True) -> OaiCompletion | None:
    """One chat completion via ``openai.OpenAI``; None when the expected error came.

    The error expected is 401 ``authentication_error`` when the server has API keys and the request does not
    carry one of them; otherwise (a refused request body, as the final-era suite used it) any error status.
    """
    state = state_of(context)
    draft = state.request
    exchange, outcome = generate_with_openai_client(state.client().base_url, draft,
                                                    chat_payload(draft, user_prompt), "message", v1=v1)
    record(context, exchange)
    if isinstance(outcome, openai.APIStatusError) and expect_api_error:
        if state.config.api_keys and draft.user_api_key not in state.config.api_keys:
            expect(isinstance(outcome, openai.AuthenticationError),
                   f"expected an authentication error, the openai client raised {type(outcome).__name__}", exchange)
            expect_unauthorized(exchange)
        return None
    if isinstance(outcome, openai.APIStatusError):
        raise AssertionError(f"the openai client raised {type(outcome).__name__}: {outcome}\n{exchange.describe()}")
    expect(not expect_api_error, "expected the openai client to raise an error, the request succeeded", exchange)
    return outcome


# ----------------------------------------------------------------------------------------------
# sending
# ----------------------------------------------------------------------------------------------

@step("an OAI compatible chat completions request with {api_error} api error")
def step_oai_chat_request(context: Any, api_error: str) -> None:
    """Send the last queued user prompt through the official openai client (``max_retries=0``).

    ``raised`` expects ``openai.AuthenticationError`` (HTTP 401, ``authentication_error``) when the server has
    API keys and the request carries none of them, else any error the client raises for a refused request.

        Given a user prompt Write a joke about AI
        And   an OAI compatible chat completions request with no api error
    """
    if api_error not in ("no", "raised"):
        raise AssertionError(f"'{api_error} api error': say 'no' or 'raised'")
    state = state_of(context)
    result = chat_with_openai_client(context, pop_prompt(context, "user prompt"), api_error == "raised")
    if result is not None:
        state.results.completions.append(result)


@step("a chat completion is requested from {path} with {client}")
def step_chat_completion_from(context: Any, path: str, client: str) -> None:
    """Send the last queued user prompt (and the system prompt) to a chat route.

    ``the openai client`` (``openai.OpenAI``, ``max_retries=0``) or ``raw HTTP`` (aiohttp); the route is
    ``/v1/chat/completions`` or ``/chat/completions``. Streams when ``streaming is enabled``.

        When a chat completion is requested from /chat/completions with the openai client
        When a chat completion is requested from /v1/chat/completions with raw HTTP
    """
    state = state_of(context)
    expect(path in CHAT_ROUTES,
           f"unknown chat route {path}: use /v1/chat/completions or /chat/completions")
    prompt = pop_prompt(context, "user prompt")
    if client == "the openai client":
        result = chat_with_openai_client(context, prompt, False, v1=path.startswith("/v1/"))
    elif client == "raw HTTP":
        draft = state.request
        exchange = send_raw(context, path, chat_payload(draft, prompt), raw_headers(draft))
        result = oai_chat_result(exchange, draft.streaming)
    else:
        raise AssertionError(f"unknown client '{client}': use 'the openai client' or 'raw HTTP'")
    state.results.completions.append(result)


@step("the chat template is applied to the prompts")
def step_apply_template(context: Any) -> None:
    """``/apply-template`` renders the system prompt and the last queued user prompt (which stays queued).

        When the chat template is applied to the prompts
    """
    state = state_of(context)
    expect(bool(state.request.prompts), "no user prompt queued: add 'Given a user prompt ...' first")
    messages = chat_messages(state.request, state.request.prompts[-1])
    exchange = expect_status(state.client().post("/apply-template", {"messages": messages}), 200)
    state.results.last = exchange
    prompt = exchange.body.get("prompt")
    expect(isinstance(prompt, str) and prompt != "", "/apply-template answered no prompt", exchange)
    state.part(ChatState).rendered = (prompt, messages, exchange)


def rendered_prompt(context: Any) -> tuple[str, list[dict[str, str]], Exchange]:
    entry = state_of(context).part(ChatState).rendered
    expect(entry is not None, "no template applied yet: add 'When the chat template is applied to the prompts'")
    return entry


@step("the rendered prompt holds every message in order")
def step_rendered_prompt_in_order(context: Any) -> None:
    """Each message's content appears in the rendered prompt, in message order.

        Then the rendered prompt holds every message in order
    """
    prompt, messages, exchange = rendered_prompt(context)
    position = 0
    for message in messages:
        found = prompt.find(message["content"], position)
        expect(found >= 0, f"the {message['role']} message {message['content']!r} is missing from the rendered "
                           f"prompt after position {position}: {prompt!r}", exchange)
        position = found + len(message["content"])
    expect(position < len(prompt), "the rendered prompt must end with the assistant's turn, after the last message",
           exchange)


# ----------------------------------------------------------------------------------------------
# checks
# ----------------------------------------------------------------------------------------------

@step("the usage counts {n_tokens:d} completion tokens")
def step_usage_completion_tokens(context: Any, n_tokens: int) -> None:
    """``usage.completion_tokens`` is N and ``total_tokens`` = ``prompt_tokens`` + ``completion_tokens``.

        Then the usage counts 8 completion tokens
    """
    result = last_oai_result(context)
    usage = usage_of(result)
    expect_equal(usage.get("completion_tokens"), n_tokens, "usage.completion_tokens", result.exchange)
    expect_equal(usage.get("total_tokens"), usage.get("prompt_tokens", 0) + n_tokens,
                 "usage.total_tokens (prompt_tokens + completion_tokens)", result.exchange)


@step("the usage counts fewer than {n_tokens:d} completion tokens")
def step_usage_fewer_completion_tokens(context: Any, n_tokens: int) -> None:
    """``usage.completion_tokens`` is below N (the answer ended before its budget) and at least 1.

        Then the usage counts fewer than 8 completion tokens
    """
    result = last_oai_result(context)
    completion_tokens = usage_of(result).get("completion_tokens")
    expect(isinstance(completion_tokens, int) and 1 <= completion_tokens < n_tokens,
           f"usage.completion_tokens should be between 1 and {n_tokens - 1}, is {completion_tokens}",
           result.exchange)


@step("the usage counts the rendered prompt's tokens")
def step_usage_prompt_tokens(context: Any) -> None:
    """``usage.prompt_tokens`` equals the token count of ``/apply-template``'s rendering of the same messages.

        Then the usage counts the rendered prompt's tokens
    """
    prompt, _, _ = rendered_prompt(context)
    result = last_oai_result(context)
    expect_equal(usage_of(result).get("prompt_tokens"), len(tokenize(context, prompt, add_special=True)),
                 "usage.prompt_tokens (tokens of the rendered prompt)", result.exchange)


@step("the completion names the model {model}")
def step_completion_names_model(context: Any, model: str) -> None:
    """``model`` of the OpenAI answer (of every chunk, when streamed) is this name.

        Then the completion names the model smollm2
    """
    result = last_oai_result(context)
    expect(len(result.models) > 0, "the answer has no model", result.exchange)
    for name in result.models:
        expect_equal(name, model, "model of the answer", result.exchange)


@step("the completion content is {text}")
def step_completion_content_is(context: Any, text: str) -> None:
    """The last result's text is exactly this (chat ``message.content``, text ``text``, native ``content``).

        Then the completion content is yes
    """
    result = last_completion(context)
    expect_equal(result.content, text, "content", result.exchange)


@step("the queued prompt is posted to {path} as a chat message")
def step_prompt_posted_as_chat(context: Any, path: str) -> None:
    """Send the last queued prompt as the user message of a raw chat request; keep the answer, error or not.

    For requests the server should refuse; check the answer with ``the request is rejected with ...``.

        When the queued prompt is posted to /v1/chat/completions as a chat message
    """
    draft = state_of(context).request
    send_raw(context, path, chat_payload(draft, pop_prompt(context)), raw_headers(draft))
