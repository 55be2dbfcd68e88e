"""Anthropic-compatible Messages: ``/v1/messages`` and ``/v1/messages/count_tokens``.

Driven through the official ``anthropic`` SDK (``max_retries=0``, an HTTP client that never reads proxy
settings) and through raw HTTP for what the SDK hides: the SSE event names, their order, error bodies.

A message answer is ``{"type": "message", "role": "assistant", "content": [blocks], "stop_reason": ...,
"stop_sequence": ..., "usage": {...}}``; blocks are ``text`` (``text``), ``tool_use`` (``id``, ``name``,
``input`` object) or ``thinking``. llama-server counts the cached part of the prompt apart:
``usage.input_tokens`` + ``usage.cache_read_input_tokens`` is the whole prompt, which is what
``count_tokens`` answers. A stream is ``message_start`` → (``content_block_start`` → ``content_block_delta``+
→ ``content_block_stop``)+ → ``message_delta`` (stop reason, output tokens) → ``message_stop``, each event's
SSE name equal to its ``type``, the blocks numbered 0, 1, ... in order.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import anthropic
import jsonschema

from llama_bdd.harness.http import Exchange, HttpClient
from llama_bdd.harness.timing import timed

from .checks import JSON_CONTENT_TYPE, expect, expect_equal, expect_status
from .request import NO_KEY

ANTHROPIC_TIMEOUT = 120.0
MESSAGES_PATH = "/v1/messages"
COUNT_TOKENS_PATH = "/v1/messages/count_tokens"
STOP_REASONS = ("end_turn", "max_tokens", "stop_sequence", "tool_use")
BLOCK_TYPES = ("text", "tool_use", "thinking")
# what ``messages.create`` names itself; every other field of the payload goes in ``extra_body``
_SDK_NAMED = ("max_tokens", "messages", "model", "metadata", "stop_sequences", "system", "tool_choice", "tools")
# the delta type each block type streams
_DELTA_OF_BLOCK = {"text": "text_delta", "tool_use": "input_json_delta", "thinking": "thinking_delta"}


@dataclass
class AnthropicMessage:
    """One Messages answer, plain or reassembled from a stream."""

    content: list[dict[str, Any]]
    stop_reason: str | None
    stop_sequence: str | None
    usage: dict[str, Any]
    exchange: Exchange | None = None
    raw: Any = None
    # (SSE event name, data) of a raw stream, or (type, data) of the SDK's stream events; None when not streamed
    events: list[tuple[str, dict[str, Any]]] | None = None
    client: str = "raw HTTP"

    @property
    def text(self) -> str:
        return "".join(block.get("text", "") for block in self.content if block.get("type") == "text")

    @property
    def tool_uses(self) -> list[dict[str, Any]]:
        return [block for block in self.content if block.get("type") == "tool_use"]

    @property
    def output_tokens(self) -> Any:
        return self.usage.get("output_tokens")

    @property
    def prompt_tokens(self) -> int:
        """The whole prompt: uncached input plus what was read from (or written to) the prompt cache."""
        return sum(self.usage.get(name) or 0 for name in
                   ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"))


# ----------------------------------------------------------------------------------------------
# requests
# ----------------------------------------------------------------------------------------------

def messages_payload(messages: list[dict[str, Any]], max_tokens: int | None, *, model: str,
                     system: Any = None, tools: list[dict[str, Any]] | None = None, tool_choice: Any = None,
                     stream: bool = False, fields: dict[str, Any] | None = None) -> dict[str, Any]:
    """A Messages request body; ``fields`` (temperature, top_k, metadata, stop_sequences, ...) are merged in."""
    payload: dict[str, Any] = {"model": model, "messages": messages}
    if max_tokens is not None:
        payload["max_tokens"] = max_tokens
    if system is not None:
        payload["system"] = system
    if tools:
        payload["tools"] = tools
    if tool_choice is not None:
        payload["tool_choice"] = tool_choice
    if stream:
        payload["stream"] = True
    payload.update(fields or {})
    return payload


def count_tokens_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """The ``count_tokens`` body of a Messages request: the same, without what only generation takes."""
    return {key: value for key, value in payload.items() if key not in ("max_tokens", "stream")}


def auth_headers(api_key: str | None, header: str = "x-api-key") -> dict[str, str]:
    """The key as Anthropic clients send it (``x-api-key``) or as a bearer token (``Authorization``)."""
    if api_key is None:
        return {}
    if header.lower() == "authorization":
        return {"Authorization": f"Bearer {api_key}"}
    return {header: api_key}


def continue_with_tool_results(messages: list[dict[str, Any]], answer: AnthropicMessage, result: str,
                               is_error: bool = False) -> list[dict[str, Any]]:
    """The conversation after ``answer``: its tool_use turn (in place of a trailing assistant prefill), then a
    user turn answering each tool use with a ``tool_result`` of ``result`` (``is_error`` when it failed)."""
    expect(bool(answer.tool_uses), "the answer holds no tool_use block to answer", answer.exchange)
    results = [{"type": "tool_result", "tool_use_id": use["id"], "content": [{"type": "text", "text": result}],
                **({"is_error": True} if is_error else {})} for use in answer.tool_uses]
    history = messages[:-1] if messages and messages[-1].get("role") == "assistant" else list(messages)
    return [*history, {"role": "assistant", "content": answer.content}, {"role": "user", "content": results}]


# ----------------------------------------------------------------------------------------------
# answers
# ----------------------------------------------------------------------------------------------

def check_block(block: Any, exchange: Exchange | None) -> None:
    expect(isinstance(block, dict) and block.get("type") in BLOCK_TYPES,
           f"a content block must be one of {', '.join(BLOCK_TYPES)}: {block!r}", exchange)
    if block["type"] == "text":
        expect(isinstance(block.get("text"), str), f"a text block needs a string text: {block!r}", exchange)
    elif block["type"] == "tool_use":
        expect(isinstance(block.get("id"), str) and block["id"] != "", f"a tool_use block needs an id: {block!r}",
               exchange)
        expect(isinstance(block.get("name"), str) and block["name"] != "",
               f"a tool_use block needs a name: {block!r}", exchange)
        expect(isinstance(block.get("input"), dict), f"a tool_use input must be an object: {block!r}", exchange)


def check_usage(usage: Any, exchange: Exchange | None) -> dict[str, Any]:
    expect(isinstance(usage, dict), "the answer has no usage", exchange)
    for name in ("input_tokens", "output_tokens"):
        value = usage.get(name)
        expect(isinstance(value, int) and not isinstance(value, bool) and value >= 0,
               f"usage.{name} must be a count, is {value!r}", exchange)
    return usage


def parse_message(exchange: Exchange | None, body: Any) -> AnthropicMessage:
    """A plain Messages answer: type message, role assistant, typed content blocks, a known stop reason, usage."""
    expect(isinstance(body, dict), "the answer is not a JSON object", exchange)
    expect_equal(body.get("type"), "message", "type", exchange)
    expect_equal(body.get("role"), "assistant", "role", exchange)
    content = body.get("content")
    expect(isinstance(content, list), "content must be a list of blocks", exchange)
    for block in content:
        check_block(block, exchange)
    expect(body.get("stop_reason") in STOP_REASONS,
           f"stop_reason must be one of {', '.join(STOP_REASONS)}, is {body.get('stop_reason')!r}", exchange)
    return AnthropicMessage(content=content, stop_reason=body["stop_reason"], stop_sequence=body.get("stop_sequence"),
                            usage=check_usage(body.get("usage"), exchange), exchange=exchange, raw=body)


def stream_order_violation(events: list[tuple[str, dict[str, Any]]]) -> str | None:
    """Why a stream breaks the Messages event grammar, or None when it keeps it.

    ``message_start`` → (``content_block_start`` → ``content_block_delta``+ → ``content_block_stop``)+ →
    ``message_delta`` → ``message_stop``; blocks numbered from 0 up by one; every delta and stop on the open
    block; each delta of the kind its block streams; an SSE event name equal to the data's ``type``.
    """
    names = [name for name, _ in events]
    if not names or names[0] != "message_start":
        return f"the stream must open with message_start: {names[:3]}"
    if names[-2:] != ["message_delta", "message_stop"]:
        return f"the stream must end with message_delta, message_stop: {names[-3:]}"
    open_block: tuple[int, str] | None = None
    deltas = blocks = 0
    for position, (name, data) in enumerate(events[1:-2], start=1):
        if data.get("type") != name:
            return f"event {position} is named {name} but its type is {data.get('type')!r}"
        index = data.get("index")
        if name == "content_block_start":
            if open_block is not None:
                return f"event {position}: block {index} starts before block {open_block[0]} stopped"
            if index != blocks:
                return f"event {position}: block {index} starts where block {blocks} is next"
            open_block, deltas = (index, (data.get("content_block") or {}).get("type")), 0
        elif name == "content_block_delta":
            if open_block is None or index != open_block[0]:
                return f"event {position}: a delta for block {index} while {open_block and open_block[0]} is open"
            wanted = _DELTA_OF_BLOCK.get(open_block[1])
            if (data.get("delta") or {}).get("type") not in (wanted, "signature_delta"):
                return f"event {position}: a {(data.get('delta') or {}).get('type')} in a {open_block[1]} block"
            deltas += 1
        elif name == "content_block_stop":
            if open_block is None or index != open_block[0]:
                return f"event {position}: block {index} stops while {open_block and open_block[0]} is open"
            if deltas == 0:
                return f"event {position}: block {index} stops without a delta"
            open_block, blocks = None, blocks + 1
        else:
            return f"event {position}: {name} inside the content blocks"
    if open_block is not None:
        return f"block {open_block[0]} never stopped"
    if blocks == 0:
        return "the stream carried no content block"
    return None


def message_from_stream(exchange: Exchange | None, events: list[tuple[str, dict[str, Any]]]) -> AnthropicMessage:
    """Reassemble a stream into a message: text deltas joined, each tool's ``input_json_delta`` parsed."""
    start = next((data for name, data in events if name == "message_start"), None)
    expect(start is not None and isinstance(start.get("message"), dict), "the stream has no message_start",
           exchange)
    head = start["message"]
    expect_equal(head.get("type"), "message", "message_start message.type", exchange)
    expect_equal(head.get("role"), "assistant", "message_start message.role", exchange)
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, str] = {}
    stop_reason, stop_sequence, usage = None, None, dict(head.get("usage") or {})
    for name, data in events:
        if name == "content_block_start":
            blocks[data["index"]] = dict(data.get("content_block") or {})
        elif name == "content_block_delta":
            delta, block = data.get("delta") or {}, blocks.setdefault(data.get("index"), {"type": "text"})
            if delta.get("type") == "text_delta":
                block["text"] = block.get("text", "") + delta.get("text", "")
            elif delta.get("type") == "input_json_delta":
                partial[data["index"]] = partial.get(data["index"], "") + delta.get("partial_json", "")
        elif name == "message_delta":
            stop_reason = (data.get("delta") or {}).get("stop_reason")
            stop_sequence = (data.get("delta") or {}).get("stop_sequence")
            usage.update({k: v for k, v in (data.get("usage") or {}).items() if v is not None})
    for index, text in partial.items():
        try:
            blocks[index]["input"] = json.loads(text)
        except ValueError:
            raise AssertionError(f"the input_json_delta fragments of block {index} are not JSON: {text!r}\n"
                                 f"{exchange.describe() if exchange else ''}") from None
    for block in blocks.values():
        if block.get("type") == "tool_use":
            block.setdefault("input", {})
    content = [blocks[index] for index in sorted(blocks)]
    for block in content:
        check_block(block, exchange)
    expect(stop_reason in STOP_REASONS, f"message_delta.stop_reason must be one of {', '.join(STOP_REASONS)}, "
                                        f"is {stop_reason!r}", exchange)
    return AnthropicMessage(content=content, stop_reason=stop_reason, stop_sequence=stop_sequence,
                            usage=check_usage(usage, exchange), exchange=exchange, events=events)


def raw_stream_events(exchange: Exchange) -> list[tuple[str, dict[str, Any]]]:
    """(SSE event name, JSON data) of each event of a raw ``text/event-stream`` answer."""
    content_type = exchange.header("Content-Type") or ""
    expect(content_type.startswith("text/event-stream"),
           f"a streamed message must be text/event-stream, is {content_type!r}", exchange)
    events = []
    for event in exchange.events or []:
        try:
            data = json.loads(event.data)
        except ValueError:
            raise AssertionError(f"a stream event is not JSON: {event.data!r}\n{exchange.describe()}") from None
        events.append((event.event or data.get("type"), data))
    return events


def raw_message_result(exchange: Exchange, streaming: bool) -> AnthropicMessage:
    """A raw answer of ``/v1/messages``: 200, then the plain message or the reassembled stream."""
    expect_status(exchange, 200)
    if streaming:
        return message_from_stream(exchange, raw_stream_events(exchange))
    expect_equal(exchange.header("Content-Type"), JSON_CONTENT_TYPE, "Content-Type", exchange)
    return parse_message(exchange, exchange.body)


def send_raw_message(http: HttpClient, payload: dict[str, Any], headers: dict[str, str]) -> AnthropicMessage:
    return raw_message_result(http.post(MESSAGES_PATH, payload, headers=headers), bool(payload.get("stream")))


def count_tokens(http: HttpClient, payload: dict[str, Any], headers: dict[str, str]) -> tuple[int, Exchange]:
    """``/v1/messages/count_tokens`` for a Messages request: ``{"input_tokens": N}``."""
    exchange = expect_status(http.post(COUNT_TOKENS_PATH, count_tokens_payload(payload), headers=headers), 200)
    body = exchange.body
    value = body.get("input_tokens") if isinstance(body, dict) else None
    expect(isinstance(value, int) and value > 0, f"count_tokens must answer a positive input_tokens, is {value!r}",
           exchange)
    return value, exchange


def expect_anthropic_error(exchange: Exchange, status: int, error_type: str) -> None:
    """Anthropic's error shape: ``{"type": "error", "error": {"type": ..., "message": ...}}`` with this status."""
    expect_status(exchange, status)
    body = exchange.body
    expect(isinstance(body, dict), "the error is not a JSON object", exchange)
    expect_equal(body.get("type"), "error", "type of the error body", exchange)
    error = body.get("error")
    expect(isinstance(error, dict), "the error body has no error object", exchange)
    expect_equal(error.get("type"), error_type, "error.type", exchange)
    expect(isinstance(error.get("message"), str) and error["message"] != "", "error.message is empty", exchange)


def tool_input_violation(block: dict[str, Any], tools: list[dict[str, Any]]) -> str | None:
    """Why a ``tool_use`` block does not fit the request's tools (unknown name, input against the schema)."""
    schemas = {tool["name"]: tool.get("input_schema", {}) for tool in tools}
    if block.get("name") not in schemas:
        return f"tool_use names {block.get('name')!r}, not one of the tools {sorted(schemas)}"
    try:
        jsonschema.validate(block.get("input"), schemas[block["name"]])
    except jsonschema.ValidationError as error:
        return f"the input of {block['name']} does not validate against its input_schema: {error.message}"
    return None


# ----------------------------------------------------------------------------------------------
# the anthropic SDK
# ----------------------------------------------------------------------------------------------

class _TimedHttpClient(anthropic.DefaultHttpxClient):
    """The SDK's HTTP client, counting its time as time spent waiting on the server."""

    def send(self, *args: Any, **kwargs: Any) -> Any:
        with timed("http"):
            return super().send(*args, **kwargs)


_HTTP_CLIENT: _TimedHttpClient | None = None


def anthropic_client(base_url: str, api_key: str | None) -> anthropic.Anthropic:
    global _HTTP_CLIENT
    if _HTTP_CLIENT is None:  # one for the run: each builds an SSL context; trust_env=False: no proxy lookups
        _HTTP_CLIENT = _TimedHttpClient(trust_env=False)
    return anthropic.Anthropic(base_url=base_url, api_key=api_key or NO_KEY, http_client=_HTTP_CLIENT,
                               max_retries=0, timeout=ANTHROPIC_TIMEOUT)


def sdk_arguments(payload: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments of ``messages.create`` for a payload (temperature, top_k, ... go in ``extra_body``)."""
    arguments = {key: value for key, value in payload.items() if key in _SDK_NAMED}
    extra = {key: value for key, value in payload.items() if key not in _SDK_NAMED and key != "stream"}
    if extra:
        arguments["extra_body"] = extra
    return arguments


def _exchange_of(base_url: str, payload: dict[str, Any], response: Any) -> Exchange:
    request = getattr(response, "request", None)
    if request is not None:
        exchange = Exchange(method=request.method, url=str(request.url), request_headers=dict(request.headers),
                            request_body=request.content or None)
    else:
        exchange = Exchange(method="POST", url=base_url + MESSAGES_PATH,
                            request_headers={"Content-Type": "application/json"},
                            request_body=json.dumps(payload).encode())
    if response is not None:
        exchange.status = response.status_code
        exchange.response_headers = dict(response.headers)
        try:
            exchange.response_text = response.text
        except Exception:  # noqa: BLE001 - a stream already consumed has no text to show
            exchange.response_text = "(streamed)"
    return exchange


def send_with_sdk(base_url: str, api_key: str | None, payload: dict[str, Any],
                  helper: bool = False) -> tuple[Exchange, AnthropicMessage | anthropic.APIStatusError]:
    """One Messages request through ``anthropic.Anthropic``.

    Plain: ``messages.create``. With ``stream`` in the payload: ``messages.create(stream=True)``, its raw
    events reassembled; with ``helper``: the SDK's ``messages.stream`` helper and its final message. Returns
    the exchange and the checked answer, or the status error the SDK raised.
    """
    client = anthropic_client(base_url, api_key)
    arguments = sdk_arguments(payload)
    started = time.monotonic()
    try:
        if helper:
            with client.messages.stream(**arguments) as stream:
                events = [(event.type, event.model_dump(exclude_unset=True)) for event in stream
                          if event.type in ("message_start", "content_block_start", "content_block_delta",
                                            "content_block_stop", "message_delta", "message_stop")]
                final = stream.get_final_message().model_dump(exclude_none=True)
                exchange = _exchange_of(base_url, payload, stream.response)
            exchange.response_text = json.dumps(final)
            result = parse_message(exchange, final)
            result.events, result.client = events, "the anthropic stream helper"
        elif payload.get("stream"):
            raw = client.messages.with_raw_response.create(**arguments, stream=True)
            events = [(event.type, event.model_dump(exclude_unset=True)) for event in raw.parse()]
            exchange = _exchange_of(base_url, payload, raw.http_response)
            exchange.response_text = "\n".join(json.dumps(data) for _, data in events)
            result = message_from_stream(exchange, events)
            result.client = "the anthropic client"
        else:
            raw = client.messages.with_raw_response.create(**arguments)
            exchange = _exchange_of(base_url, payload, raw.http_response)
            raw.parse()  # the SDK must be able to read the answer into its types
            result = parse_message(exchange, json.loads(exchange.response_text))
            result.client = "the anthropic client"
    except anthropic.APIStatusError as error:
        return _exchange_of(base_url, payload, error.response), error
    except anthropic.APIConnectionError as error:
        raise AssertionError(f"the anthropic client could not reach {base_url}: {error}") from None
    exchange.elapsed = time.monotonic() - started
    return exchange, result


def count_tokens_with_sdk(base_url: str, api_key: str | None, payload: dict[str, Any]) -> tuple[int, Exchange]:
    """``messages.count_tokens`` through the SDK."""
    client = anthropic_client(base_url, api_key)
    arguments = {key: value for key, value in sdk_arguments(count_tokens_payload(payload)).items()
                 if key not in ("metadata", "stop_sequences")}  # count_tokens takes neither
    raw = client.messages.with_raw_response.count_tokens(**arguments)
    exchange = _exchange_of(base_url, payload, raw.http_response)
    value = raw.parse().input_tokens
    expect(isinstance(value, int) and value > 0, f"count_tokens must answer a positive input_tokens, is {value!r}",
           exchange)
    return value, exchange
