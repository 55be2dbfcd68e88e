"""Tool calling on ``/v1/chat/completions``: tool definitions, the conversations that lead to calls, and the
structural checks on the calls that come back, plain or streamed.

How llama-server (b11434) treats tools depends on the chat template. It analyses the template (a
"differential autoparser", ``common/chat-auto-parser-*.cpp``, plus specialised handlers for a few families
in ``common/chat.cpp``): when the template renders ``tools`` and assistant ``tool_calls`` (the Hermes 2 Pro /
Qwen 2.5 ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` style, Llama 3.x, Mistral, DeepSeek,
Qwen3-Coder, ...), ``/props`` reports ``chat_template_caps.supports_tool_calls`` true, the tools are
rendered into the prompt, ``tool_choice: required`` constrains the output with a grammar (free text, then at
least one call) and the calls are parsed into ``message.tool_calls`` with ``finish_reason: tool_calls``.
A template without tool support (SmolLM2's) gets no tool format at all: the tools are left out of the prompt
and ``tool_choice`` has no effect (docs/function-calling.md still describes a "generic" fallback format).

``tool_choice`` is read as a string: ``auto``, ``none`` or ``required``; anything else is a 400, except an
object (OpenAI's named-function form), which the server reads as ``auto`` (``json_value`` falls back to the
default on a type mismatch).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .answers import OaiCompletion
from .checks import expect, expect_equal
from .schema import schema_violations

# the tools the scenarios offer, by name
TOOLS: dict[str, dict[str, Any]] = {
    "get_weather": {"type": "function", "function": {
        "name": "get_weather", "description": "The current weather of a city",
        "parameters": {"type": "object", "properties": {
            "city": {"type": "string", "description": "the city, e.g. Paris"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
            "required": ["city"], "additionalProperties": False}}},
    "get_time": {"type": "function", "function": {
        "name": "get_time", "description": "The current time in a time zone",
        "parameters": {"type": "object", "properties": {
            "timezone": {"type": "string", "description": "an IANA time zone, e.g. Europe/Paris"}},
            "required": ["timezone"], "additionalProperties": False}}},
}


def tool_definitions(names: list[str]) -> list[dict[str, Any]]:
    unknown = [name for name in names if name not in TOOLS]
    expect(not unknown, f"unknown tools {unknown}: the suite defines {', '.join(TOOLS)}")
    return [TOOLS[name] for name in names]


def tool_names(text: str) -> list[str]:
    """``get_weather and get_time`` or ``get_weather, get_time`` -> the names."""
    return [name.strip() for name in text.replace(" and ", ",").split(",") if name.strip()]


def tool_choice_field(choice: str) -> Any:
    """``required``/``none``/``auto`` as they are; ``get_time`` as OpenAI's named-function object."""
    if choice in ("required", "none", "auto"):
        return choice
    expect(choice in TOOLS, f"tool choice {choice!r}: say required, none, auto or a tool name ({', '.join(TOOLS)})")
    return {"type": "function", "function": {"name": choice}}


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


# Earlier turns in which the assistant answered each question with a call: a small model follows the
# pattern (the template renders them as calls in its own format), so a required call comes at once.
EARLIER_CALLS: list[dict[str, Any]] = [
    {"role": "system", "content": "You answer every question with a tool call."},
    {"role": "user", "content": "What is the weather in Rome?"},
    {"role": "assistant", "content": None, "tool_calls": [_call("call_1", "get_weather", {"city": "Rome"})]},
    {"role": "user", "content": "What is the time in Tokyo?"},
    {"role": "assistant", "content": None, "tool_calls": [_call("call_2", "get_time", {"timezone": "Asia/Tokyo"})]},
]

# the same, with a turn that made two calls at once (for parallel_tool_calls)
EARLIER_PARALLEL_CALLS: list[dict[str, Any]] = [
    *EARLIER_CALLS,
    {"role": "user", "content": "What is the weather in Oslo and the time in New York?"},
    {"role": "assistant", "content": None, "tool_calls": [
        _call("call_3", "get_weather", {"city": "Oslo"}), _call("call_4", "get_time", {"timezone": "America/New_York"})]},
]

# a call, and the tool's result answering it: the assistant is to reply in words
ANSWERED_CALL: list[dict[str, Any]] = [
    {"role": "user", "content": "What is the weather in Paris?"},
    {"role": "assistant", "content": None, "tool_calls": [_call("call_7", "get_weather", {"city": "Paris"})]},
    {"role": "tool", "tool_call_id": "call_7", "content": json.dumps({"temperature": 21, "sky": "clear"})},
]

HISTORIES = {"earlier tool calls": EARLIER_CALLS, "earlier parallel tool calls": EARLIER_PARALLEL_CALLS,
             "a tool result": ANSWERED_CALL}


@dataclass
class ToolCall:
    """One call of an answer: its id, the function's name and its arguments as the text that came back."""

    id: str | None
    name: str | None
    arguments: str | None

    def parsed_arguments(self) -> Any:
        return json.loads(self.arguments) if self.arguments is not None else None


def calls_of(result: OaiCompletion) -> list[ToolCall]:
    """The tool calls of a chat answer: ``message.tool_calls``, or, streamed, the ``delta.tool_calls``
    fragments put back together by ``index`` (the id and name come once, the arguments in pieces)."""
    if result.chunks is None:
        message = (result.raw or {}).get("choices", [{}])[0].get("message") or {}
        return [ToolCall(call.get("id"), (call.get("function") or {}).get("name"),
                         (call.get("function") or {}).get("arguments")) for call in message.get("tool_calls") or []]
    calls: dict[int, ToolCall] = {}
    for chunk in result.chunks:
        for choice in chunk.get("choices") or []:
            for fragment in (choice.get("delta") or {}).get("tool_calls") or []:
                expect("index" in fragment, f"a streamed tool call fragment has no index: {fragment}", result.exchange)
                call = calls.setdefault(fragment["index"], ToolCall(None, None, None))
                function = fragment.get("function") or {}
                if fragment.get("id"):
                    expect(call.id in (None, fragment["id"]), f"tool call {fragment['index']} changed its id "
                                                              f"from {call.id} to {fragment['id']}", result.exchange)
                    call.id = fragment["id"]
                if function.get("name"):
                    call.name = (call.name or "") + function["name"]
                if function.get("arguments") is not None:
                    call.arguments = (call.arguments or "") + function["arguments"]
    expect(sorted(calls) == list(range(len(calls))), f"streamed tool call indexes are not 0..n-1: {sorted(calls)}",
           result.exchange)
    return [calls[index] for index in sorted(calls)]


def expect_valid_calls(result: OaiCompletion, tools: list[dict[str, Any]]) -> list[ToolCall]:
    """``finish_reason`` ``tool_calls`` and at least one call; each call has an id, a function name among the
    offered tools, and arguments that parse as JSON and validate against that tool's ``parameters``."""
    expect_equal(result.finish_reason, "tool_calls", "finish_reason of an answer that calls tools", result.exchange)
    calls = calls_of(result)
    expect(len(calls) > 0, "finish_reason is tool_calls, but the answer carries no tool call", result.exchange)
    schemas = {tool["function"]["name"]: tool["function"].get("parameters", {"type": "object"}) for tool in tools}
    for position, call in enumerate(calls):
        expect(isinstance(call.id, str) and call.id != "", f"tool call {position} has no id", result.exchange)
        expect(call.name in schemas, f"tool call {position} names {call.name!r}, not one of the offered tools "
                                     f"{sorted(schemas)}", result.exchange)
        try:
            arguments = call.parsed_arguments()
        except ValueError as error:
            raise AssertionError(f"the arguments of tool call {position} ({call.name}) are not JSON ({error}): "
                                 f"{call.arguments!r}\n{result.exchange.describe() if result.exchange else ''}")
        problems = schema_violations(arguments, schemas[call.name])
        expect(not problems, f"the arguments of tool call {position} ({call.name}) break its schema:\n  "
               + "\n  ".join(problems), result.exchange)
    return calls


def expect_no_calls(result: OaiCompletion) -> None:
    """No tool call, plain or streamed, and a ``finish_reason`` other than ``tool_calls``."""
    calls = calls_of(result)
    expect(not calls, f"the answer calls tools: {calls}", result.exchange)
    expect(result.finish_reason in ("stop", "length"),
           f"finish_reason should be stop or length, is {result.finish_reason!r}", result.exchange)


def same_calls(plain: list[ToolCall], streamed: list[ToolCall]) -> tuple[bool, str]:
    """Whether two answers make the same calls: same names, same arguments (as JSON); ids are the server's."""
    left = [(call.name, call.parsed_arguments()) for call in plain]
    right = [(call.name, call.parsed_arguments()) for call in streamed]
    return left == right, f"plain: {left}\nstreamed: {right}"
