"""OpenAI Responses (``/v1/responses``, ``/responses``, ``.../input_tokens``): the openai client and raw HTTP.

The request reuses the scenario's draft: ``N max tokens to predict`` is ``max_output_tokens``, ``a system
prompt`` the ``instructions``, ``streaming is enabled`` streams, ``the request field X is Y`` adds any
field. ``input`` is the queued user prompt, or the input items given with ``a Responses ... input item``.
What the answers look like, and the checks on them, are in ``llama_bdd.client.responses``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import openai

from llama_bdd.client import responses as responses_api
from llama_bdd.client.responses import ResponsesAnswer

from .core import expect, expect_equal, expect_status, state_of, step
from .core.scenario import openai_model, pop_prompt, record, send_raw, tokenize


@dataclass
class ResponsesState:
    """The input items being built, the last request sent, and the answers."""

    items: list[dict[str, Any]] = field(default_factory=list)
    payload: dict[str, Any] | None = None
    answers: list[ResponsesAnswer] = field(default_factory=list)


def responses_state(context: Any) -> ResponsesState:
    return state_of(context).part(ResponsesState)


def responses_request(context: Any) -> dict[str, Any]:
    """The scenario's Responses request (the queued user prompt is the input when no item was given; the
    request is kept, so it can be sent again)."""
    state, part = state_of(context), responses_state(context)
    if part.items:
        input_value: Any = list(part.items)
    elif part.payload is not None and not state.request.prompts:
        input_value = part.payload["input"]  # the same request again
    else:
        input_value = pop_prompt(context, "user prompt")
    draft = state.request
    part.payload = responses_api.responses_payload(input_value, draft.n_predict, model=openai_model(context),
                                                   instructions=draft.system_prompt, stream=draft.streaming,
                                                   fields=draft.fields)
    return part.payload


def last_response(context: Any) -> ResponsesAnswer:
    answers = responses_state(context).answers
    expect(bool(answers), "no Responses answer yet: add 'When a response is requested from ... with ...'")
    return answers[-1]


@step('a Responses {role:w} input item "{text}"')
def step_responses_item(context: Any, role: str, text: str) -> None:
    """Add a message item to ``input``: ``user`` (string content) or ``assistant`` (an output message item).

        Given a Responses user input item "Hi"
        And   a Responses assistant input item "Hello!"
    """
    if role == "assistant":
        item = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}
    else:
        item = {"role": role, "content": text}
    responses_state(context).items.append(item)


@step("a response is requested from {path:UrlPath} with {client}")
def step_responses_request(context: Any, path: str, client: str) -> None:
    """Send the scenario's Responses request to ``/v1/responses`` or ``/responses`` and check the answer.

    ``the openai client`` (``responses.create``, ``stream=True`` when streaming) or ``raw HTTP``.

        When a response is requested from /v1/responses with the openai client
        When a response is requested from /responses with raw HTTP
    """
    state, payload = state_of(context), responses_request(context)
    if client == "raw HTTP":
        expect(path in responses_api.RESPONSES_ROUTES, f"unknown Responses route {path}")
        answer = responses_api.raw_answer(send_raw(context, path, payload, state.request.auth_headers()),
                                          state.request.streaming)
    else:
        expect(client == "the openai client", f"unknown client '{client}': the openai client or raw HTTP")
        exchange, answer = responses_api.send_with_sdk(state.client().base_url, state.request.user_api_key, path,
                                                       payload)
        record(context, exchange)
        if isinstance(answer, openai.APIStatusError):
            raise AssertionError(f"the openai client raised {type(answer).__name__}: {answer}\n{exchange.describe()}")
    responses_state(context).answers.append(answer)


@step("the Responses answer has status {status:w}")
def step_responses_status(context: Any, status: str) -> None:
    """``status`` of the response (``completed``, ``incomplete``, ...).

        Then the Responses answer has status completed
    """
    answer = last_response(context)
    expect_equal(answer.status, status, "status", answer.exchange)


@step("the Responses answer is incomplete because of {reason:w}")
def step_responses_incomplete(context: Any, reason: str) -> None:
    """``status`` incomplete and ``incomplete_details.reason`` this reason.

        Then the Responses answer is incomplete because of max_output_tokens
    """
    answer = last_response(context)
    expect_equal(answer.status, "incomplete", "status", answer.exchange)
    expect_equal((answer.incomplete_details or {}).get("reason"), reason, "incomplete_details.reason",
                 answer.exchange)


@step("the Responses output is one assistant message with the output text")
def step_responses_output_items(context: Any) -> None:
    """``output`` holds one completed assistant message item whose ``output_text`` parts make a non-empty text.

        Then the Responses output is one assistant message with the output text
    """
    answer = last_response(context)
    messages = [item for item in answer.output if item.get("type") == "message"]
    expect_equal(len(messages), 1, "message items in output", answer.exchange)
    expect_equal(messages[0].get("status"), "completed", "status of the message item", answer.exchange)
    expect(answer.output_text.strip() != "", "the output text is empty", answer.exchange)


@step("the Responses usage counts {n_tokens:d} output tokens")
def step_responses_output_tokens(context: Any, n_tokens: int) -> None:
    """``usage.output_tokens`` is N (``total_tokens`` = input + output is checked on arrival).

        Then the Responses usage counts 6 output tokens
    """
    answer = last_response(context)
    expect_equal(answer.usage["output_tokens"], n_tokens, "usage.output_tokens", answer.exchange)


@step("the Responses usage counts the tokens of the generated text")
def step_responses_output_tokens_of_text(context: Any) -> None:
    """``usage.output_tokens`` equals the token count of the output text (for an answer cut at its budget).

        Then the Responses usage counts the tokens of the generated text
    """
    answer = last_response(context)
    expect_equal(answer.usage["output_tokens"], len(tokenize(context, answer.output_text, add_special=False)),
                 "usage.output_tokens (tokens of the output text)", answer.exchange)


@step("the Responses usage counts the tokens of the rendered conversation")
def step_responses_input_tokens_rendered(context: Any) -> None:
    """``usage.input_tokens`` equals the tokens of ``/apply-template``'s rendering of instructions and input.

        Then the Responses usage counts the tokens of the rendered conversation
    """
    state, answer = state_of(context), last_response(context)
    messages = responses_api.chat_messages_of(responses_state(context).payload)
    exchange = expect_status(state.client().post("/apply-template", {"messages": messages}), 200)
    expect_equal(answer.usage["input_tokens"], len(tokenize(context, exchange.body["prompt"], add_special=True)),
                 "usage.input_tokens (tokens of the rendered conversation)", answer.exchange)


@step("the Responses input tokens agree with {path:UrlPath}")
def step_responses_input_tokens_route(context: Any, path: str) -> None:
    """``usage.input_tokens`` equals what an input_tokens route counts for the same request (raw HTTP).

        Then the Responses input tokens agree with /v1/responses/input_tokens
    """
    state, answer = state_of(context), last_response(context)
    counted, _ = responses_api.count_input_tokens(state.client(), path, responses_state(context).payload,
                                                  state.request.auth_headers())
    expect_equal(answer.usage["input_tokens"], counted, f"usage.input_tokens ({path} says {counted})",
                 answer.exchange)


@step("the Responses input tokens agree with the openai client's count")
def step_responses_input_tokens_sdk(context: Any) -> None:
    """``usage.input_tokens`` equals ``client.responses.input_tokens.count`` for the same request.

        Then the Responses input tokens agree with the openai client's count
    """
    state, answer = state_of(context), last_response(context)
    counted = responses_api.count_input_tokens_with_sdk(state.client().base_url, state.request.user_api_key,
                                                        responses_state(context).payload)
    expect_equal(answer.usage["input_tokens"], counted, "usage.input_tokens (responses.input_tokens.count)",
                 answer.exchange)


@step("the Responses stream goes from response.created through text deltas to response.completed")
def step_responses_stream_order(context: Any) -> None:
    """response.created first, response.output_text.delta events, response.completed last; names equal types.

        Then the Responses stream goes from response.created through text deltas to response.completed
    """
    answer = last_response(context)
    expect(answer.events is not None, "the last Responses answer was not streamed", answer.exchange)
    problem = responses_api.stream_order_violation(answer.events)
    expect(problem is None, f"{problem}; events: {[name for name, _ in answer.events]}", answer.exchange)


@step("the Responses stream deltas add up to the output text")
def step_responses_deltas(context: Any) -> None:
    """The ``response.output_text.delta`` events, joined, are the completed response's output text.

        Then the Responses stream deltas add up to the output text
    """
    answer = last_response(context)
    expect_equal(answer.deltas_text, answer.output_text, "joined output_text deltas", answer.exchange)


@step("the last 2 Responses answers have the same output")
def step_responses_same(context: Any) -> None:
    """Same output text and usage token counts (e.g. streamed and plain, or two routes).

        Then the last 2 Responses answers have the same output
    """
    answers = responses_state(context).answers
    expect(len(answers) >= 2, f"needs 2 Responses answers, got {len(answers)}")
    first, second = answers[-2:]
    expect_equal(second.output_text, first.output_text, "output_text", second.exchange)
    expect_equal(second.usage["output_tokens"], first.usage["output_tokens"], "usage.output_tokens",
                 second.exchange)
