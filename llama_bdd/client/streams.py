"""Resumable streams: a streamed chat kept by the server under its ``X-Conversation-Id``, replayed later.

``POST /v1/chat/completions`` streamed with ``X-Conversation-Id: ID`` tees every SSE byte into a buffer the
server keeps (300 s after the end). ``GET /v1/stream?conv_id=ID&from=N`` replays it from byte ``N`` (and
follows it live while it runs); ``POST /v1/streams/lookup`` ``{"conversation_ids": [ID, ...]}`` answers
``is_done``, ``total_bytes``, ``started_at``, ``completed_at`` for the ids asked about only (an id also
matches ``ID::model``); ``DELETE /v1/stream?conv_id=ID`` stops and forgets it (204, idempotent). Whoever
knows the id owns the stream: there is no route that lists ids (README-dev.md, "Resumable streaming").
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import requests

from llama_bdd.harness.http import Exchange, HttpClient, loopback_session
from llama_bdd.harness.sse import parse_sse

from .checks import expect, expect_equal, expect_status

CONVERSATION_HEADER = "X-Conversation-Id"
LOOKUP_PATH = "/v1/streams/lookup"
DONE_TIMEOUT = 120.0


@dataclass
class StreamedChat:
    """A streamed chat as its first caller saw it (all of it, or up to where it hung up)."""

    conversation_id: str
    raw: str  # the SSE text received
    dropped: bool
    exchange: Exchange


def chat_payload(max_tokens: int, seed: int) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": "Write a long story about a lighthouse."}],
            "max_tokens": max_tokens, "stream": True, "temperature": 0, "seed": seed, "ignore_eos": True,
            "stream_options": {"include_usage": True}}


def stream_chat(base_url: str, conversation_id: str, payload: dict[str, Any], drop_after_first_event: bool,
                headers: dict[str, str] | None = None, timeout: float = 120.0) -> StreamedChat:
    """Send the chat; read it whole, or hang up as soon as its first event has arrived."""
    url = base_url + "/v1/chat/completions"
    sent = {**(headers or {}), CONVERSATION_HEADER: conversation_id, "Content-Type": "application/json"}
    exchange = Exchange(method="POST", url=url, request_headers=sent, request_body=json.dumps(payload).encode())
    started, received = time.monotonic(), b""
    with loopback_session() as session:
        try:
            with session.post(url, data=exchange.request_body, headers=sent, stream=True, timeout=timeout) as answer:
                exchange.status, exchange.response_headers = answer.status_code, dict(answer.headers)
                for chunk in answer.iter_content(chunk_size=None):
                    received += chunk
                    if drop_after_first_event and b"\n\n" in received:
                        break
                    if time.monotonic() - started > timeout:
                        raise requests.Timeout("the stream was still running when its time ran out")
        except requests.RequestException as error:
            exchange.error = f"{type(error).__name__}: {error}"
    exchange.elapsed = time.monotonic() - started
    exchange.response_text = received.decode("utf-8", errors="replace")
    expect_status(exchange, 200)
    expect(exchange.error is None, f"the stream broke off: {exchange.error}", exchange)
    return StreamedChat(conversation_id, exchange.response_text, drop_after_first_event, exchange)


def stream_path(conversation_id: str, offset: int | None = None) -> str:
    path = f"/v1/stream?conv_id={quote(conversation_id, safe='')}"
    return path if offset is None else f"{path}&from={offset}"


def replay(http: HttpClient, conversation_id: str, offset: int = 0, headers: dict[str, str] | None = None) -> Exchange:
    return http.get(stream_path(conversation_id, offset), headers=headers)


def lookup(http: HttpClient, conversation_ids: list[str], headers: dict[str, str] | None = None) -> Exchange:
    return http.post(LOOKUP_PATH, {"conversation_ids": conversation_ids}, headers=headers)


def lookup_entries(exchange: Exchange) -> list[dict[str, Any]]:
    expect_status(exchange, 200)
    body = exchange.body
    expect(isinstance(body, list), "POST /v1/streams/lookup must answer a JSON array", exchange)
    return body


def wait_until_done(http: HttpClient, conversation_id: str, headers: dict[str, str] | None = None,
                    timeout: float = DONE_TIMEOUT) -> tuple[dict[str, Any], Exchange]:
    """Poll the lookup (bounded) until the stream is done; its entry and the last lookup."""
    deadline = time.monotonic() + timeout
    while True:
        exchange = lookup(http, [conversation_id], headers=headers)
        entries = lookup_entries(exchange)
        expect_equal(len(entries), 1, f"lookup entries for {conversation_id}", exchange)
        if entries[0].get("is_done"):
            return entries[0], exchange
        expect(time.monotonic() < deadline, f"the stream was not done within {timeout:.0f}s", exchange)
        time.sleep(0.1)


def chat_of(sse_text: str) -> tuple[str, dict[str, Any] | None, bool]:
    """The content of an OpenAI chat stream, its usage, and whether it ended with ``data: [DONE]``."""
    content, usage, done = "", None, False
    for event in parse_sse(sse_text):
        if event.data == "[DONE]":
            done = True
            continue
        chunk = json.loads(event.data)
        usage = chunk.get("usage") or usage
        for choice in chunk.get("choices") or []:
            content += (choice.get("delta") or {}).get("content") or ""
    return content, usage, done
