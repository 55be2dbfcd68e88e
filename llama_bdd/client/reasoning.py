"""Reasoning ("thinking") in chat answers: ``message.reasoning_content`` next to ``message.content``.

With a template whose generation prompt opens a ``<think>`` block (DeepSeek R1, Qwen 3 and the suite's
``think.jinja``), the model's text starts inside that block. ``--reasoning-format`` (or the request's
``reasoning_format``) decides what the answer shows: ``deepseek`` (and ``auto``, the default) moves the
text up to ``</think>`` into ``reasoning_content`` and the rest into ``content``; ``none`` leaves everything,
the opening ``<think>`` of the prompt included, in ``content``. ``--reasoning-budget N`` (or the request's
``reasoning_budget_tokens``) forces ``</think>`` after N tokens of thinking; ``0`` means at once.
Streamed, the two parts come as ``delta.reasoning_content`` and ``delta.content`` fragments.
``POST /v1/chat/completions/control`` ``{"id": ..., "action": "reasoning_end"}`` ends the reasoning of a
running chat that armed it (``reasoning_control: true``): the server forces ``</think>`` at once and the
answer goes on as content. It answers ``{"success": bool[, "message"]}``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import jsonschema
import requests

from llama_bdd.harness.http import Exchange, HttpClient, loopback_session
from llama_bdd.harness.sse import SseReader

from .answers import OaiCompletion
from .checks import expect, expect_equal, expect_status

THINK_OPEN, THINK_CLOSE = "<think>", "</think>"


@dataclass
class AnswerParts:
    reasoning: str | None  # None when the answer has no reasoning_content at all
    content: str


def parts_of(result: OaiCompletion) -> AnswerParts:
    """The reasoning and the content of a chat answer, plain or streamed (fragments joined)."""
    if result.chunks is None:
        message = (result.raw or {}).get("choices", [{}])[0].get("message") or {}
        return AnswerParts(message.get("reasoning_content"), message.get("content") or "")
    return parts_of_chunks(result.chunks)


def parts_of_chunks(chunks: list[dict[str, Any]]) -> AnswerParts:
    """The reasoning and the content of a chat stream's chunks, fragments joined."""
    reasoning, content = None, ""
    for chunk in chunks:
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            if delta.get("reasoning_content") is not None:
                reasoning = (reasoning or "") + delta["reasoning_content"]
            content += delta.get("content") or ""
    return AnswerParts(reasoning, content)


def expect_reasoning_separated(result: OaiCompletion) -> AnswerParts:
    """``reasoning_content`` holds text, and neither part shows a ``<think>`` tag."""
    parts = parts_of(result)
    expect(bool(parts.reasoning and parts.reasoning.strip()), f"the answer has no reasoning_content: {parts}",
           result.exchange)
    for name, text in (("reasoning_content", parts.reasoning or ""), ("content", parts.content)):
        for tag in (THINK_OPEN, THINK_CLOSE):
            expect(tag not in text, f"{name} still shows {tag}: {text!r}", result.exchange)
    return parts


def expect_reasoning_in_content(result: OaiCompletion) -> AnswerParts:
    """No ``reasoning_content``; ``content`` starts with the ``<think>`` the prompt opened."""
    parts = parts_of(result)
    expect(not parts.reasoning, f"reasoning_content should be absent, is {parts.reasoning!r}", result.exchange)
    expect(parts.content.startswith(THINK_OPEN), f"content should start with {THINK_OPEN}: {parts.content!r}",
           result.exchange)
    return parts


def expect_thinking_closed(result: OaiCompletion) -> AnswerParts:
    """Thinking ended: the answer has content after it, with no ``<think>`` tag left in either part."""
    parts = parts_of(result)
    expect(parts.content.strip() != "", f"the answer has no content after its thinking: {parts}", result.exchange)
    for name, text in (("reasoning_content", parts.reasoning or ""), ("content", parts.content)):
        for tag in (THINK_OPEN, THINK_CLOSE, "think>"):
            expect(tag not in text, f"{name} still shows {tag!r}: {text!r}", result.exchange)
    return parts


# ----------------------------------------------------------------------------------------------
# POST /v1/chat/completions/control: ending the reasoning of a running chat
# ----------------------------------------------------------------------------------------------

CONTROL_PATH = "/v1/chat/completions/control"
REASONING_END = "reasoning_end"
CONTROL_SCHEMA = {
    "type": "object",
    "required": ["success"],
    "properties": {"success": {"type": "boolean"}, "message": {"type": "string"}},
}


@dataclass
class ControlledStream:
    """A streamed chat, and the control request sent while it ran (None when none was sent)."""

    exchange: Exchange
    chunks: list[dict[str, Any]]
    control: Exchange | None

    @property
    def parts(self) -> AnswerParts:
        return parts_of_chunks(self.chunks)


def stream_with_control(base_url: str, payload: dict[str, Any], headers: dict[str, str], control_http: HttpClient,
                        after_reasoning_deltas: int | None, action: str = REASONING_END,
                        timeout: float = 120.0) -> ControlledStream:
    """Stream a chat; once ``after_reasoning_deltas`` reasoning fragments have arrived, send the control
    ``action`` for the chat's ``id`` (through ``control_http``, while the stream goes on); read to the end."""
    url = base_url + "/v1/chat/completions"
    body = {**payload, "stream": True}
    sent = {**headers, "Content-Type": "application/json"}
    exchange = Exchange(method="POST", url=url, request_headers=sent, request_body=json.dumps(body).encode())
    started, reader = time.monotonic(), SseReader()
    chunks: list[dict[str, Any]] = []
    control, reasoning_deltas = None, 0
    with loopback_session() as session:
        try:
            with session.post(url, data=exchange.request_body, headers=sent, stream=True, timeout=timeout) as answer:
                exchange.status, exchange.response_headers = answer.status_code, dict(answer.headers)
                for raw in answer.iter_content(chunk_size=None):
                    for event in reader.feed(raw):
                        if event.data == "[DONE]":
                            continue
                        chunk = json.loads(event.data)
                        chunks.append(chunk)
                        reasoning_deltas += sum(1 for choice in chunk.get("choices") or []
                                                if (choice.get("delta") or {}).get("reasoning_content"))
                        if (control is None and after_reasoning_deltas is not None
                                and reasoning_deltas >= after_reasoning_deltas and chunk.get("id")):
                            control = control_http.post(CONTROL_PATH, {"id": chunk["id"], "action": action},
                                                        headers=headers)
                    if time.monotonic() - started > timeout:
                        raise requests.Timeout("the stream was still running when its time ran out")
        except requests.RequestException as error:
            exchange.error = f"{type(error).__name__}: {error}"
    exchange.elapsed = time.monotonic() - started
    exchange.response_text = reader.text
    expect_status(exchange, 200)
    expect(exchange.error is None, f"the stream broke off: {exchange.error}", exchange)
    return ControlledStream(exchange, chunks, control)


def expect_control_answer(exchange: Exchange | None, success: bool, message: str | None = None) -> None:
    """The control request answered 200 ``{"success": success}`` (with ``message`` in its message)."""
    expect(exchange is not None, "no control request was sent: the stream ended before enough reasoning arrived")
    body = expect_status(exchange, 200).body
    try:
        jsonschema.validate(body, CONTROL_SCHEMA)
    except jsonschema.ValidationError as error:
        raise AssertionError(f"the control answer is not {{success[, message]}}: {error.message}\n"
                             f"{exchange.describe()}") from None
    expect_equal(body["success"], success, "success of the control answer", exchange)
    if message is not None:
        expect(message in body.get("message", ""), f"the control answer's message should say {message!r}", exchange)


def expect_reasoning_cut_short(controlled: ControlledStream, whole: ControlledStream) -> None:
    """The controlled stream's reasoning is a shorter start of the uncontrolled one's (greedy, same request),
    every reasoning fragment came before the first content fragment, and the answer went on as content."""
    cut, full = controlled.parts, whole.parts
    exchange = controlled.exchange
    expect(bool(cut.reasoning), f"the controlled answer has no reasoning at all: {cut}", exchange)
    expect((full.reasoning or "").startswith(cut.reasoning or ""),
           f"the controlled reasoning should be the start of the uncontrolled one:\n  controlled:   "
           f"{cut.reasoning!r}\n  uncontrolled: {full.reasoning!r}", exchange)
    expect(len(cut.reasoning or "") < len(full.reasoning or ""),
           f"reasoning_end did not shorten the reasoning ({len(cut.reasoning or '')} characters, as without it)",
           exchange)
    expect(cut.content.strip() != "", "after reasoning_end the answer has no content", exchange)
    content_started = False
    for number, chunk in enumerate(controlled.chunks):
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            content_started = content_started or bool(delta.get("content"))
            expect(not (content_started and delta.get("reasoning_content")),
                   f"chunk {number} brings reasoning after the content began: {chunk}", exchange)
