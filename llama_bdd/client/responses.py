"""OpenAI Responses: ``/v1/responses``, ``/responses`` and their ``/input_tokens`` routes.

Driven through the official ``openai`` client (``client.responses.create``, ``stream=True``,
``client.responses.input_tokens.count``) and raw HTTP. llama-server turns a Responses request into a chat
completion: ``instructions`` becomes the system message, ``input`` (a string, or message items) the
conversation, ``max_output_tokens`` the token budget. The answer is ``{"object": "response", "status": ...,
"output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": ...}]}],
"usage": {"input_tokens", "output_tokens", "total_tokens"}}``; ``usage.input_tokens`` counts the whole
prompt (the cached part is in ``input_tokens_details.cached_tokens``), as the input_tokens routes do.
A stream goes ``response.created`` ... ``response.output_text.delta``+ ... ``response.completed``, the
completed event carrying the whole response.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import openai

from llama_bdd.harness.http import Exchange, HttpClient

from .checks import JSON_CONTENT_TYPE, expect, expect_equal, expect_status
from .openai_api import exchange_from_openai, openai_client
from .routes import absent_route, newer_route

RESPONSES_ROUTES = ("/v1/responses", "/responses")
INPUT_TOKENS_ROUTES = ("/v1/responses/input_tokens", "/responses/input_tokens")
# what ``responses.create`` names itself; every other payload field goes in ``extra_body``
_SDK_NAMED = ("input", "model", "instructions", "max_output_tokens", "temperature", "top_p", "metadata")


@dataclass
class ResponsesAnswer:
    """One Responses answer, plain or the ``response.completed`` of a stream."""

    status: str | None
    output: list[dict[str, Any]]
    usage: dict[str, Any]
    exchange: Exchange | None = None
    raw: Any = None
    incomplete_details: Any = None
    # (event name, data) of a stream; None when not streamed
    events: list[tuple[str, dict[str, Any]]] | None = None
    client: str = "raw HTTP"

    @property
    def output_text(self) -> str:
        """The text of every ``output_text`` part of every assistant message, joined (as the SDK's property)."""
        return "".join(part.get("text", "") for item in self.output if item.get("type") == "message"
                       for part in item.get("content") or [] if part.get("type") == "output_text")

    @property
    def deltas_text(self) -> str:
        return "".join(data.get("delta", "") for name, data in self.events or []
                       if name == "response.output_text.delta")


def responses_payload(input_value: Any, max_output_tokens: int | None, *, model: str,
                      instructions: str | None = None, stream: bool = False,
                      fields: dict[str, Any] | None = None) -> dict[str, Any]:
    payload: dict[str, Any] = {"model": model, "input": input_value}
    if instructions is not None:
        payload["instructions"] = instructions
    if max_output_tokens is not None:
        payload["max_output_tokens"] = max_output_tokens
    if stream:
        payload["stream"] = True
    payload.update(fields or {})
    return payload


def input_tokens_payload(payload: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in payload.items() if key not in ("stream", "max_output_tokens")}


def chat_messages_of(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """The chat messages the server makes of ``instructions`` and ``input`` (string or message items)."""
    messages = [{"role": "system", "content": payload["instructions"]}] if "instructions" in payload else []
    items = payload["input"] if isinstance(payload["input"], list) else [{"role": "user",
                                                                          "content": payload["input"]}]
    for item in items:
        content = item.get("content")
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content)
        messages.append({"role": item["role"], "content": content})
    return messages


def parse_response(exchange: Exchange | None, body: Any) -> ResponsesAnswer:
    """A Responses answer: object response, a status, message items of output_text parts, usage that adds up."""
    expect(isinstance(body, dict), "the answer is not a JSON object", exchange)
    expect_equal(body.get("object"), "response", "object", exchange)
    expect(isinstance(body.get("status"), str), "the response has no status", exchange)
    output = body.get("output")
    expect(isinstance(output, list) and output != [], "output must be a non-empty list of items", exchange)
    for item in output:
        expect(isinstance(item, dict) and isinstance(item.get("type"), str), f"an output item has no type: {item!r}",
               exchange)
        if item["type"] == "message":
            expect_equal(item.get("role"), "assistant", "role of the output message", exchange)
            parts = item.get("content")
            expect(isinstance(parts, list), f"a message item needs a content list: {item!r}", exchange)
            for part in parts:
                if part.get("type") == "output_text":
                    expect(isinstance(part.get("text"), str), f"an output_text part needs a text: {part!r}",
                           exchange)
    usage = body.get("usage")
    expect(isinstance(usage, dict), "the response has no usage", exchange)
    for name in ("input_tokens", "output_tokens", "total_tokens"):
        expect(isinstance(usage.get(name), int) and usage[name] >= 0,
               f"usage.{name} must be a count, is {usage.get(name)!r}", exchange)
    expect_equal(usage["total_tokens"], usage["input_tokens"] + usage["output_tokens"],
                 "usage.total_tokens (input_tokens + output_tokens)", exchange)
    return ResponsesAnswer(status=body["status"], output=output, usage=usage, exchange=exchange, raw=body,
                           incomplete_details=body.get("incomplete_details"))


def answer_from_stream(exchange: Exchange | None, events: list[tuple[str, dict[str, Any]]]) -> ResponsesAnswer:
    """The response of a stream's ``response.completed`` event, with the events kept."""
    completed = [data for name, data in events if name == "response.completed"]
    expect(len(completed) == 1, f"a stream must carry one response.completed, carried {len(completed)}", exchange)
    answer = parse_response(exchange, completed[0].get("response"))
    answer.events = events
    return answer


def stream_order_violation(events: list[tuple[str, dict[str, Any]]]) -> str | None:
    """Why a stream breaks ``response.created`` ... ``response.output_text.delta``+ ... ``response.completed``."""
    names = [name for name, _ in events]
    for name, data in events:
        if data.get("type") != name:
            return f"an event is named {name} but its type is {data.get('type')!r}"
    if not names or names[0] != "response.created":
        return f"the stream must open with response.created: {names[:3]}"
    if names[-1] != "response.completed":
        return f"the stream must end with response.completed: {names[-3:]}"
    deltas = [index for index, name in enumerate(names) if name == "response.output_text.delta"]
    if not deltas:
        return "the stream carried no response.output_text.delta"
    if "response.output_text.done" in names and names.index("response.output_text.done") < deltas[-1]:
        return "response.output_text.done came before the last delta"
    return None


def raw_stream_events(exchange: Exchange) -> list[tuple[str, dict[str, Any]]]:
    content_type = exchange.header("Content-Type") or ""
    expect(content_type.startswith("text/event-stream"),
           f"a streamed response must be text/event-stream, is {content_type!r}", exchange)
    events = []
    for event in exchange.events or []:
        if event.data == "[DONE]":
            continue
        try:
            data = json.loads(event.data)
        except ValueError:
            raise AssertionError(f"a stream event is not JSON: {event.data!r}\n{exchange.describe()}") from None
        events.append((event.event or data.get("type"), data))
    return events


def raw_answer(exchange: Exchange, streaming: bool) -> ResponsesAnswer:
    """A raw answer of a Responses route: 200, then the plain response or the stream's completed response."""
    expect_status(exchange, 200)
    if streaming:
        return answer_from_stream(exchange, raw_stream_events(exchange))
    expect_equal(exchange.header("Content-Type"), JSON_CONTENT_TYPE, "Content-Type", exchange)
    return parse_response(exchange, exchange.body)


def send_raw(http: HttpClient, path: str, payload: dict[str, Any], headers: dict[str, str]) -> ResponsesAnswer:
    return raw_answer(http.post(path, payload, headers=headers), bool(payload.get("stream")))


def sdk_arguments(payload: dict[str, Any]) -> dict[str, Any]:
    arguments = {key: value for key, value in payload.items() if key in _SDK_NAMED}
    extra = {key: value for key, value in payload.items() if key not in _SDK_NAMED and key != "stream"}
    if extra:
        arguments["extra_body"] = extra
    return arguments


def send_with_sdk(base_url: str, api_key: str | None, path: str,
                  payload: dict[str, Any]) -> tuple[Exchange, ResponsesAnswer | openai.APIStatusError]:
    """``client.responses.create`` (``stream=True`` when the payload streams) on ``/v1/responses`` or
    ``/responses``; the checked answer, or the status error the client raised."""
    expect(path in RESPONSES_ROUTES, f"unknown Responses route {path}: use {' or '.join(RESPONSES_ROUTES)}")
    client = openai_client(base_url, api_key, v1=path.startswith("/v1/"))
    url, started = base_url + path, time.monotonic()
    try:
        if payload.get("stream"):
            raw = client.responses.with_raw_response.create(**sdk_arguments(payload), stream=True)
            events = [(event.type, event.model_dump(exclude_unset=True)) for event in raw.parse()]
            exchange = exchange_from_openai(url, payload, api_key, None)
            exchange.status, exchange.response_headers = raw.status_code, dict(raw.headers)
            exchange.response_text = "\n".join(json.dumps(data) for _, data in events)
            answer = answer_from_stream(exchange, events)
        else:
            raw = client.responses.with_raw_response.create(**sdk_arguments(payload))
            exchange = exchange_from_openai(url, payload, api_key, raw.http_response)
            parsed = raw.parse()
            answer = parse_response(exchange, json.loads(exchange.response_text))
            expect_equal(parsed.output_text, answer.output_text, "the openai client's output_text", exchange)
    except openai.APIStatusError as error:
        return exchange_from_openai(url, payload, api_key, error.response), error
    except openai.APIConnectionError as error:
        raise AssertionError(f"the openai client could not reach {url}: {error}") from None
    exchange.elapsed = time.monotonic() - started
    answer.client = "the openai client"
    return exchange, answer


def count_input_tokens(http: HttpClient, path: str, payload: dict[str, Any],
                       headers: dict[str, str]) -> tuple[int, Exchange]:
    """An input_tokens route: ``{"object": "response.input_tokens", "input_tokens": N}``."""
    expect(path in INPUT_TOKENS_ROUTES, f"unknown input_tokens route {path}: use {' or '.join(INPUT_TOKENS_ROUTES)}")
    exchange = expect_status(http.post(path, input_tokens_payload(payload), headers=headers), 200)
    body = exchange.body
    expect(isinstance(body, dict), "the answer is not a JSON object", exchange)
    expect_equal(body.get("object"), "response.input_tokens", "object", exchange)
    value = body.get("input_tokens")
    expect(isinstance(value, int) and value > 0, f"input_tokens must be positive, is {value!r}", exchange)
    return value, exchange


def count_input_tokens_with_sdk(base_url: str, api_key: str | None, payload: dict[str, Any]) -> int:
    """``client.responses.input_tokens.count`` (``/v1/responses/input_tokens``)."""
    client = openai_client(base_url, api_key)
    arguments = {key: value for key, value in sdk_arguments(input_tokens_payload(payload)).items()
                 if key in ("input", "model", "instructions", "extra_body")}
    try:
        return client.responses.input_tokens.count(**arguments).input_tokens
    except openai.NotFoundError as error:
        url = str(error.response.url)
        if newer_route("POST", url, error.response.text):
            raise absent_route("POST", url, f"client.responses.input_tokens.count: {error}") from None
        raise
