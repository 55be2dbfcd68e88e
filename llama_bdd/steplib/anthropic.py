"""Anthropic-compatible Messages (``/v1/messages``, ``/v1/messages/count_tokens``): the SDK and raw HTTP.

The request reuses the scenario's draft: ``N max tokens to predict`` is ``max_tokens``, ``a system prompt``
the ``system`` string, ``streaming is enabled`` streams, ``the request field X is Y`` adds any field
(temperature, top_k, metadata, stop_sequences), ``a user api key`` the key. With no Anthropic message
given, the queued user prompt is the one user turn. What the answers look like, and the checks on them,
are in ``llama_bdd.client.anthropic``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import anthropic as anthropic_sdk

from llama_bdd.client import anthropic as messages_api
from llama_bdd.client.anthropic import AnthropicMessage
from llama_bdd.client.checks import json_value

from .core import expect, expect_equal, state_of, step
from .core.scenario import last_exchange, openai_model, pop_prompt, record, send_raw, tokenize

ANTHROPIC_CLIENTS = ("the anthropic client", "the anthropic stream helper", "raw HTTP")


@dataclass
class AnthropicState:
    """The conversation being built, the tools offered, and the answers that came back."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    system: Any = None  # system blocks; None: the draft's system prompt (a string), if any
    tools: list[dict[str, Any]] = field(default_factory=list)
    tool_choice: Any = None
    key_header: str = "x-api-key"
    answers: list[AnthropicMessage] = field(default_factory=list)
    payload: dict[str, Any] | None = None  # the last request sent


def anthropic_state(context: Any) -> AnthropicState:
    return state_of(context).part(AnthropicState)


def anthropic_payload(context: Any) -> dict[str, Any]:
    """The Messages request of the scenario (the queued user prompt becomes the conversation when it is empty)."""
    state, part = state_of(context), anthropic_state(context)
    if not part.messages:
        part.messages.append({"role": "user", "content": pop_prompt(context, "user prompt")})
    draft = state.request
    system = part.system if part.system is not None else draft.system_prompt
    part.payload = messages_api.messages_payload(part.messages, draft.n_predict, model=openai_model(context),
                                                 system=system, tools=part.tools, tool_choice=part.tool_choice,
                                                 stream=draft.streaming, fields=draft.fields)
    return part.payload


def last_answer(context: Any) -> AnthropicMessage:
    answers = anthropic_state(context).answers
    expect(bool(answers), "no Anthropic answer yet: add 'When an Anthropic message is requested with ...'")
    return answers[-1]


def key_headers(context: Any) -> dict[str, str]:
    return messages_api.auth_headers(state_of(context).request.user_api_key, anthropic_state(context).key_header)


# ----------------------------------------------------------------------------------------------
# the request
# ----------------------------------------------------------------------------------------------

@step('an Anthropic {role:w} message "{text}"')
def step_anthropic_message(context: Any, role: str, text: str) -> None:
    """Add a turn with string content to the conversation (any role, so bad roles can be sent too); ``\\n``
    in the text is a line break. An assistant turn last is a prefill: the answer continues it.

        Given an Anthropic user message "Hello"
        And   an Anthropic assistant message "Hi there!"
    """
    anthropic_state(context).messages.append({"role": role, "content": text.replace("\\n", "\n")})


@step("an Anthropic {role:w} message in text blocks:")
def step_anthropic_message_blocks(context: Any, role: str) -> None:
    """Add a turn whose content is a list of text blocks, one per row of the table's ``text`` column.

        Given an Anthropic user message in text blocks:
          | text         |
          | What is      |
          | the capital? |
    """
    blocks = [{"type": "text", "text": row["text"]} for row in context.table]
    anthropic_state(context).messages.append({"role": role, "content": blocks})


@step("an Anthropic system prompt in text blocks:")
def step_anthropic_system_blocks(context: Any) -> None:
    """Send ``system`` as a list of text blocks, one per row of the table's ``text`` column.

        Given an Anthropic system prompt in text blocks:
          | text                 |
          | You are helpful.     |
          | Answer in one line.  |
    """
    anthropic_state(context).system = [{"type": "text", "text": row["text"]} for row in context.table]


@step('an Anthropic tool {name:w} described as "{description}" with input schema {schema}')
def step_anthropic_tool(context: Any, name: str, description: str, schema: str) -> None:
    """Offer a tool: its name, description and JSON ``input_schema`` (one line).

        Given an Anthropic tool get_time described as "Get the time" with input schema {"type": "object"}
    """
    anthropic_state(context).tools.append({"name": name, "description": description,
                                           "input_schema": json_value(schema)})


@step("the Anthropic tool choice is {choice}")
def step_anthropic_tool_choice(context: Any, choice: str) -> None:
    """Set ``tool_choice`` (JSON).

        Given the Anthropic tool choice is {"type": "any"}
        Given the Anthropic tool choice is {"type": "tool", "name": "get_time"}
    """
    anthropic_state(context).tool_choice = json_value(choice)


@step("the Anthropic API key is sent in the {header} header")
def step_anthropic_key_header(context: Any, header: str) -> None:
    """Send the user API key in ``x-api-key`` (Anthropic's header, the default) or ``Authorization`` (Bearer).

        Given the Anthropic API key is sent in the Authorization header
    """
    expect(header.lower() in ("x-api-key", "authorization"), f"unknown key header {header}: x-api-key or Authorization")
    anthropic_state(context).key_header = header


@step('the Anthropic answer\'s tool use is answered with "{text}"')
def step_anthropic_tool_result(context: Any, text: str) -> None:
    """Continue the conversation: the last answer's tool_use turn (replacing a prefill), then a user turn of
    ``tool_result`` blocks answering each tool use.

        Given the Anthropic answer's tool use is answered with "Sunny, 25 C"
    """
    part = anthropic_state(context)
    part.messages = messages_api.continue_with_tool_results(part.messages, last_answer(context), text)


@step('the Anthropic answer\'s tool use is answered with the error "{text}"')
def step_anthropic_tool_error(context: Any, text: str) -> None:
    """As above, with ``is_error: true`` on each ``tool_result``.

        Given the Anthropic answer's tool use is answered with the error "service unavailable"
    """
    part = anthropic_state(context)
    part.messages = messages_api.continue_with_tool_results(part.messages, last_answer(context), text, True)


# ----------------------------------------------------------------------------------------------
# sending
# ----------------------------------------------------------------------------------------------

@step("an Anthropic message is requested with {client}")
def step_anthropic_request(context: Any, client: str) -> None:
    """Send the scenario's Messages request and check the answer (streamed when streaming is enabled).

    ``the anthropic client`` (``messages.create``, ``stream=True`` when streaming), ``the anthropic stream
    helper`` (``messages.stream`` and its final message, always streamed) or ``raw HTTP``.

        When an Anthropic message is requested with the anthropic client
        When an Anthropic message is requested with raw HTTP
    """
    expect(client in ANTHROPIC_CLIENTS, f"unknown client '{client}': use {', '.join(ANTHROPIC_CLIENTS)}")
    state, payload = state_of(context), anthropic_payload(context)
    if client == "raw HTTP":
        exchange = send_raw(context, messages_api.MESSAGES_PATH, payload, key_headers(context))
        answer = messages_api.raw_message_result(exchange, state.request.streaming)
    else:
        exchange, answer = messages_api.send_with_sdk(state.client().base_url, state.request.user_api_key, payload,
                                                      helper=client == "the anthropic stream helper")
        record(context, exchange)
        if isinstance(answer, anthropic_sdk.APIStatusError):
            raise AssertionError(f"the anthropic client raised {type(answer).__name__}: {answer}\n"
                                 f"{exchange.describe()}")
    anthropic_state(context).answers.append(answer)


@step("the Anthropic request is posted as it is")
def step_anthropic_post_as_is(context: Any) -> None:
    """Send the scenario's Messages request over raw HTTP and keep the answer, whatever it is.

    For refusals: check with ``the request is rejected with ...`` or ``... refused in Anthropic's shape ...``.

        When the Anthropic request is posted as it is
    """
    state = state_of(context)
    state.results.last = state.client().post(messages_api.MESSAGES_PATH, anthropic_payload(context),
                                             headers=key_headers(context))


# ----------------------------------------------------------------------------------------------
# checks
# ----------------------------------------------------------------------------------------------

@step("the Anthropic answer is a text message")
def step_anthropic_text_message(context: Any) -> None:
    """The answer (type message, role assistant: checked on arrival) holds text blocks only, with some text.

        Then the Anthropic answer is a text message
    """
    answer = last_answer(context)
    expect(answer.content != [] and all(block["type"] == "text" for block in answer.content),
           f"expected text blocks only, got {[block['type'] for block in answer.content]}", answer.exchange)
    expect(answer.text.strip() != "", "the text blocks are empty", answer.exchange)


@step("the Anthropic stop reason is {reason:w}")
def step_anthropic_stop_reason(context: Any, reason: str) -> None:
    """``stop_reason`` of the answer (of ``message_delta`` when streamed).

        Then the Anthropic stop reason is max_tokens
    """
    answer = last_answer(context)
    expect_equal(answer.stop_reason, reason, "stop_reason", answer.exchange)


@step("the Anthropic stop sequence is {value}")
def step_anthropic_stop_sequence(context: Any, value: str) -> None:
    """``stop_sequence`` of the answer: ``null``, or the stop sequence that ended it (JSON).

        Then the Anthropic stop sequence is null
        Then the Anthropic stop sequence is "three"
    """
    answer = last_answer(context)
    expect_equal(answer.stop_sequence, json_value(value), "stop_sequence", answer.exchange)


@step('the Anthropic text does not contain "{text}"')
def step_anthropic_text_lacks(context: Any, text: str) -> None:
    """The answer's text does not hold this text (a stop sequence is not part of the answer).

        Then the Anthropic text does not contain "three"
    """
    answer = last_answer(context)
    expect(text not in answer.text, f"the text should not contain {text!r}: {answer.text!r}", answer.exchange)


@step("the Anthropic usage counts {n_tokens:d} output tokens")
def step_anthropic_output_tokens(context: Any, n_tokens: int) -> None:
    """``usage.output_tokens`` is N (from ``message_delta`` when streamed).

        Then the Anthropic usage counts 8 output tokens
    """
    answer = last_answer(context)
    expect_equal(answer.output_tokens, n_tokens, "usage.output_tokens", answer.exchange)


@step("the Anthropic usage counts fewer than {n_tokens:d} output tokens")
def step_anthropic_fewer_output_tokens(context: Any, n_tokens: int) -> None:
    """``usage.output_tokens`` is at least 1 and below N (the answer ended before its budget).

        Then the Anthropic usage counts fewer than 16 output tokens
    """
    answer = last_answer(context)
    expect(1 <= answer.output_tokens < n_tokens,
           f"usage.output_tokens should be between 1 and {n_tokens - 1}, is {answer.output_tokens}", answer.exchange)


@step("the Anthropic usage counts the tokens of the generated text")
def step_anthropic_output_tokens_of_text(context: Any) -> None:
    """``usage.output_tokens`` equals the token count of the answer's text (for an answer cut at max_tokens).

        Then the Anthropic usage counts the tokens of the generated text
    """
    answer = last_answer(context)
    expect_equal(answer.output_tokens, len(tokenize(context, answer.text, add_special=False)),
                 "usage.output_tokens (tokens of the generated text)", answer.exchange)


@step("the Anthropic input tokens equal what count_tokens says with {client}")
def step_anthropic_input_tokens(context: Any, client: str) -> None:
    """``usage.input_tokens`` + ``cache_read_input_tokens`` equals ``/v1/messages/count_tokens`` for the same
    request, asked through ``raw HTTP`` or ``the anthropic client`` (``messages.count_tokens``).

        Then the Anthropic input tokens equal what count_tokens says with raw HTTP
    """
    state, answer, payload = state_of(context), last_answer(context), anthropic_state(context).payload
    if client == "raw HTTP":
        counted, exchange = messages_api.count_tokens(state.client(), payload, key_headers(context))
    else:
        expect(client == "the anthropic client", f"unknown client '{client}': raw HTTP or the anthropic client")
        counted, exchange = messages_api.count_tokens_with_sdk(state.client().base_url, state.request.user_api_key,
                                                               payload)
        record(context, exchange)
    expect_equal(answer.prompt_tokens, counted, f"usage.input_tokens + cache_read_input_tokens (count_tokens: "
                                                f"{counted}, usage: {answer.usage})", answer.exchange)


@step("the Anthropic stream events follow the Messages order")
def step_anthropic_event_order(context: Any) -> None:
    """message_start → (content_block_start → content_block_delta+ → content_block_stop)+ → message_delta →
    message_stop; blocks numbered 0, 1, ...; SSE event names equal to each event's type.

        Then the Anthropic stream events follow the Messages order
    """
    answer = last_answer(context)
    expect(answer.events is not None, "the last Anthropic answer was not streamed", answer.exchange)
    problem = messages_api.stream_order_violation(answer.events)
    expect(problem is None, f"{problem}; events: {[name for name, _ in answer.events]}", answer.exchange)


@step("the last 2 Anthropic answers are the same")
def step_anthropic_same_answers(context: Any) -> None:
    """Same text, tool uses (names and inputs), stop reason and output tokens (e.g. streamed and plain).

        Then the last 2 Anthropic answers are the same
    """
    answers = anthropic_state(context).answers
    expect(len(answers) >= 2, f"needs 2 Anthropic answers, got {len(answers)}")
    first, second = answers[-2:]
    for what, value in (("text", lambda a: a.text), ("stop_reason", lambda a: a.stop_reason),
                        ("usage.output_tokens", lambda a: a.output_tokens),
                        ("tool uses", lambda a: [(use["name"], use["input"]) for use in a.tool_uses])):
        expect_equal(value(second), value(first), f"{what} of {second.client} vs {first.client}", second.exchange)


@step("every Anthropic tool use validates against its tool's input schema")
def step_anthropic_tool_inputs_valid(context: Any) -> None:
    """At least one ``tool_use`` block; each names an offered tool and its ``input`` validates (jsonschema).

        Then every Anthropic tool use validates against its tool's input schema
    """
    answer = last_answer(context)
    expect(bool(answer.tool_uses), "the answer holds no tool_use block", answer.exchange)
    for block in answer.tool_uses:
        problem = messages_api.tool_input_violation(block, anthropic_state(context).tools)
        expect(problem is None, str(problem), answer.exchange)


@step("the Anthropic answer calls only the tool {name:w}")
def step_anthropic_calls_only(context: Any, name: str) -> None:
    """Every ``tool_use`` block of the answer names this tool (and there is one).

        Then the Anthropic answer calls only the tool get_time
    """
    answer = last_answer(context)
    names = [block["name"] for block in answer.tool_uses]
    expect(names != [] and set(names) == {name}, f"expected calls of {name} only, got {names}", answer.exchange)


@step("the request is refused in Anthropic's shape with {status:d} {error_type:w}")
def step_anthropic_error(context: Any, status: int, error_type: str) -> None:
    """This status and ``{"type": "error", "error": {"type": ..., "message": ...}}``.

        Then the request is refused in Anthropic's shape with 400 invalid_request_error
    """
    messages_api.expect_anthropic_error(last_exchange(context), status, error_type)
