"""Tool calling on the OpenAI chat routes: the tools offered, ``tool_choice``, earlier turns, the calls that
come back (plain and streamed) and their arguments, validated against each tool's JSON schema.

What the server does with tools, and the checks, are in ``llama_bdd.client.tools``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import openai

from llama_bdd.client import tools as tools_client
from llama_bdd.client.openai_api import (CHAT_ROUTES, generate_with_openai_client, oai_chat_result, openai_payload,
                                         raw_headers)

from .core import expect, expect_equal, state_of, step
from .core.scenario import last_oai_result, record, send_raw


@dataclass
class ToolState:
    """What the tool steps remember between steps of a scenario."""

    history: list[dict[str, Any]] = field(default_factory=list)  # the turns before the queued user prompt
    offered: list[dict[str, Any]] = field(default_factory=list)  # the tools of the last request
    # the calls of each answer, in order, for the stream == plain check
    calls: list[list[tools_client.ToolCall]] = field(default_factory=list)


@step("the request offers the tools {names}")
def step_offer_tools(context: Any, names: str) -> None:
    """Send these tools (defined by the suite: ``get_weather``, ``get_time``) in ``tools``.

        Given the request offers the tools get_weather and get_time
    """
    tools = tools_client.tool_definitions(tools_client.tool_names(names))
    state_of(context).request.fields["tools"] = tools
    state_of(context).part(ToolState).offered = tools


@step("the tool choice is {choice}")
def step_tool_choice(context: Any, choice: str) -> None:
    """``tool_choice``: ``required``, ``none``, ``auto``, or a tool's name (OpenAI's named-function object).

        Given the tool choice is required
        Given the tool choice is get_time
    """
    state_of(context).request.fields["tool_choice"] = tools_client.tool_choice_field(choice)


@step("the conversation so far holds {history}")
def step_history(context: Any, history: str) -> None:
    """Earlier turns sent before the queued user prompt: ``earlier tool calls`` (two questions answered with a
    call each), ``earlier parallel tool calls`` (and one answered with two calls), ``a tool result`` (a call and
    the ``role: tool`` message answering it, with its ``tool_call_id``).

        Given the conversation so far holds earlier tool calls
    """
    expect(history in tools_client.HISTORIES,
           f"unknown conversation {history!r}: say one of {', '.join(tools_client.HISTORIES)}")
    state_of(context).part(ToolState).history = [dict(turn) for turn in tools_client.HISTORIES[history]]


@step("a chat with tools is sent to {path} with {client}")
def step_send_tool_chat(context: Any, path: str, client: str) -> None:
    """The conversation so far, then the queued user prompt if any, to a chat route, with the request fields
    (``tools``, ``tool_choice``, ...); through ``the openai client`` or ``raw HTTP``; streamed when enabled.

        When a chat with tools is sent to /v1/chat/completions with the openai client
    """
    state = state_of(context)
    expect(path in CHAT_ROUTES, f"unknown chat route {path}: use {' or '.join(CHAT_ROUTES)}")
    tool_state, draft = state.part(ToolState), state.request
    messages = tool_state.history + [{"role": "user", "content": prompt} for prompt in draft.prompts[-1:]]
    draft.prompts[-1:] = []
    payload = openai_payload(draft, {"messages": messages})
    if client == "the openai client":
        exchange, result = generate_with_openai_client(state.client().base_url, draft, payload, "message",
                                                       v1=path.startswith("/v1/"))
        record(context, exchange)
        expect(not isinstance(result, openai.APIStatusError), f"the openai client raised: {result}", exchange)
    else:
        expect(client == "raw HTTP", f"unknown client {client!r}: say 'the openai client' or 'raw HTTP'")
        result = oai_chat_result(send_raw(context, path, payload, raw_headers(draft)), draft.streaming)
    state.results.completions.append(result)
    tool_state.calls.append(tools_client.calls_of(result))


@step("the answer makes valid tool calls")
def step_valid_calls(context: Any) -> None:
    """``finish_reason`` ``tool_calls``; each call has an id, names an offered tool, and its ``arguments``
    parse as JSON and validate (``jsonschema``) against that tool's ``parameters``.

        Then the answer makes valid tool calls
    """
    tools_client.expect_valid_calls(last_oai_result(context), state_of(context).part(ToolState).offered)


@step("the answer makes {count:d} valid tool calls")
def step_count_valid_calls(context: Any, count: int) -> None:
    """As ``the answer makes valid tool calls``, and exactly N of them.

        Then the answer makes 2 valid tool calls
    """
    result = last_oai_result(context)
    calls = tools_client.expect_valid_calls(result, state_of(context).part(ToolState).offered)
    expect_equal(len(calls), count, "number of tool calls", result.exchange)


@step("every tool call names {name:w}")
def step_calls_name(context: Any, name: str) -> None:
    """Each call of the last answer calls this function.

        Then every tool call names get_weather
    """
    result = last_oai_result(context)
    for call in tools_client.calls_of(result):
        expect_equal(call.name, name, "function.name of a tool call", result.exchange)


@step("the answer makes no tool call")
def step_no_calls(context: Any) -> None:
    """No ``tool_calls`` (nor streamed fragments of one), ``finish_reason`` ``stop`` or ``length``.

        Then the answer makes no tool call
    """
    tools_client.expect_no_calls(last_oai_result(context))


@step("the answer replies in words")
def step_replies_in_words(context: Any) -> None:
    """The answer has text content and no tool call.

        Then the answer replies in words
    """
    result = last_oai_result(context)
    tools_client.expect_no_calls(result)
    expect(result.content.strip() != "", "the answer has no text content", result.exchange)


@step("the streamed tool calls equal the plain ones")
def step_stream_equals_plain(context: Any) -> None:
    """The last two answers (plain, then streamed) call the same functions with the same arguments.

        Then the streamed tool calls equal the plain ones
    """
    calls = state_of(context).part(ToolState).calls
    expect(len(calls) >= 2, "send the tool chat twice (plain, then streamed) first")
    same, detail = tools_client.same_calls(calls[-2], calls[-1])
    expect(same, f"the streamed tool calls differ from the plain ones:\n{detail}", last_oai_result(context).exchange)
