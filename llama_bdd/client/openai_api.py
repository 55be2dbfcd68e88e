"""OpenAI-compatible generation: ``/v1/chat/completions``, ``/chat/completions`` and ``/v1/completions``.

Driven through the official ``openai`` v1 client (``max_retries=0``) and through raw HTTP. Both chat routes
answer the same way: ``choices`` (one), ``usage`` (``prompt_tokens``, ``completion_tokens``,
``total_tokens``), ``finish_reason`` ``stop`` or ``length``, and ``model`` set to the server's alias
whatever the request named. Streamed, the answer is ``text/event-stream``: one choice per chunk, a last
chunk with no choices that carries ``usage`` when ``stream_options.include_usage`` asks for it, and
``data: [DONE]`` at the end. ``/v1/completions`` answers ``choices[0].text`` the same way.
"""

from __future__ import annotations

import json
import time
from typing import Any

import openai

from llama_bdd.harness.http import Exchange, tls_context
from llama_bdd.harness.timing import timed

from .answers import OaiCompletion
from .checks import JSON_CONTENT_TYPE, expect, expect_equal, expect_status
from .request import CORS_TEST_ORIGIN, NO_KEY, RequestDraft

OPENAI_TIMEOUT = 120.0
TEXT_COMPLETIONS_PATH = "/v1/completions"
CHAT_ROUTES = ("/v1/chat/completions", "/chat/completions")
# the arguments ``create`` names itself; every other payload field goes in ``extra_body``
_NAMED = {"message": ("messages", "model", "stream", "max_tokens", "seed", "stream_options"),
          "text": ("prompt", "model", "stream", "max_tokens", "seed", "stream_options")}


def chat_messages(draft: RequestDraft, user_prompt: str) -> list[dict[str, str]]:
    messages = []
    if draft.system_prompt is not None:
        messages.append({"role": "system", "content": draft.system_prompt})
    messages.append({"role": "user", "content": user_prompt})
    return messages


def openai_payload(draft: RequestDraft, body: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI-style request body: ``body`` plus the draft's seed, streaming, model, token budget and fields."""
    payload: dict[str, Any] = {**body, "stream": draft.streaming, "seed": draft.effective_seed, **draft.fields}
    if draft.model is not None:
        payload["model"] = draft.model
    if draft.n_predict is not None:
        payload["max_tokens"] = draft.n_predict
    if draft.streaming:
        payload.setdefault("stream_options", {"include_usage": True})
    return payload


def chat_payload(draft: RequestDraft, user_prompt: str) -> dict[str, Any]:
    return openai_payload(draft, {"messages": chat_messages(draft, user_prompt)})


def text_completion_payload(draft: RequestDraft, prompt: Any) -> dict[str, Any]:
    return openai_payload(draft, {"prompt": prompt})


def raw_headers(draft: RequestDraft) -> dict[str, str]:
    """What a raw OpenAI-style request carries: a bearer key (some key, as the clients send) and the test Origin."""
    return {"Authorization": f"Bearer {draft.user_api_key or NO_KEY}", "Origin": CORS_TEST_ORIGIN}


class _TimedHttpClient(openai.DefaultHttpxClient):
    """The openai client's HTTP client, counting its time as time spent waiting on the server."""

    def send(self, *args: Any, **kwargs: Any) -> Any:
        with timed("http"):
            return super().send(*args, **kwargs)


_HTTP_CLIENT: _TimedHttpClient | None = None


def openai_client(base_url: str, api_key: str | None, v1: bool = True) -> openai.OpenAI:
    global _HTTP_CLIENT
    if _HTTP_CLIENT is None:  # one for the run: each new one builds an SSL context, which is slow
        _HTTP_CLIENT = _TimedHttpClient(trust_env=False, verify=tls_context())  # the suite's CAs too
    return openai.OpenAI(base_url=f"{base_url}/v1" if v1 else base_url, api_key=api_key or NO_KEY,
                         http_client=_HTTP_CLIENT,
                         max_retries=0, timeout=OPENAI_TIMEOUT)


def exchange_from_openai(url: str, payload: dict[str, Any], api_key: str | None, response: Any) -> Exchange:
    """An Exchange for failure reports from an openai-client call: the request exactly as the client sent it
    when its HTTP response is at hand, else rebuilt from ``url`` and ``payload``."""
    request = getattr(response, "request", None)
    if request is not None:
        if request.headers.get("content-type", "").startswith("multipart/"):
            # streamed by the client and never buffered (reading it raises): described, not shown
            body = f"<multipart/form-data: {json.dumps(payload)}>".encode()
        else:
            body = request.content or None
        exchange = Exchange(method=request.method, url=str(request.url), request_headers=dict(request.headers),
                            request_body=body)
    else:
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {api_key or NO_KEY}"}
        exchange = Exchange(method="POST", url=url, request_headers=headers,
                            request_body=json.dumps(payload).encode())
    if response is not None:
        exchange.status = response.status_code
        exchange.response_headers = dict(response.headers)
        exchange.response_text = response.text
    return exchange


def openai_arguments(draft: RequestDraft, payload: dict[str, Any], kind: str) -> dict[str, Any]:
    """Keyword arguments of ``chat.completions.create`` (``kind`` message) or ``completions.create`` (text)."""
    first = "messages" if kind == "message" else "prompt"
    arguments: dict[str, Any] = {first: payload[first], "model": draft.model or "llama-bdd",
                                 "seed": draft.effective_seed,
                                 "extra_body": {k: v for k, v in payload.items() if k not in _NAMED[kind]}}
    if draft.n_predict is not None:
        arguments["max_tokens"] = draft.n_predict
    if draft.streaming:
        arguments["stream"] = True
        arguments["stream_options"] = payload["stream_options"]
    return arguments


def generate_with_openai_client(base_url: str, draft: RequestDraft, payload: dict[str, Any], kind: str,
                                v1: bool = True) -> tuple[Exchange, OaiCompletion | openai.APIStatusError]:
    """One generation through ``openai.OpenAI``: chat (``kind`` message) or text completion (``kind`` text).

    Returns the exchange as the client sent it, and the checked result, or the status error the client raised.
    """
    client = openai_client(base_url, draft.user_api_key, v1=v1)
    if kind == "message":
        url, create = f"{base_url}{'/v1' if v1 else ''}/chat/completions", client.chat.completions
    else:
        url, create = base_url + TEXT_COMPLETIONS_PATH, client.completions
    started = time.monotonic()
    try:
        raw = create.with_raw_response.create(**openai_arguments(draft, payload, kind))
    except openai.APIStatusError as error:
        return exchange_from_openai(url, payload, draft.user_api_key, error.response), error
    except openai.APIConnectionError as error:
        raise AssertionError(f"the openai client could not reach {url}: {error}") from None
    if draft.streaming:
        exchange = exchange_from_openai(url, payload, draft.user_api_key, None)
        exchange.status, exchange.response_headers = raw.status_code, dict(raw.headers)
        chunks = [chunk.model_dump(exclude_unset=True) for chunk in raw.parse()]
        exchange.response_text = "\n".join(json.dumps(chunk) for chunk in chunks)
        exchange.elapsed = time.monotonic() - started
        result = oai_stream_result(exchange, chunks, kind)
    else:
        exchange = exchange_from_openai(url, payload, draft.user_api_key, raw.http_response)
        exchange.elapsed = time.monotonic() - started
        result = oai_plain_result(exchange, raw.parse().model_dump(exclude_unset=True), kind)
    result.client = "the openai client"
    return exchange, result


def oai_plain_result(exchange: Exchange, body: dict[str, Any], kind: str) -> OaiCompletion:
    """A non-streamed OpenAI answer; ``kind`` is ``message`` (chat) or ``text`` (text completions)."""
    expect_equal(exchange.header("Content-Type"), JSON_CONTENT_TYPE, "Content-Type", exchange)
    choices = body.get("choices")
    expect(isinstance(choices, list), "the answer has no choices", exchange)
    expect_equal(len(choices), 1, "number of choices", exchange)
    choice = choices[0]
    content = (choice["message"].get("content") if kind == "message" else choice.get("text")) or ""
    usage = body.get("usage")
    expect(isinstance(usage, dict), "the answer has no usage", exchange)
    return OaiCompletion(content=content, predicted_n=usage["completion_tokens"], exchange=exchange,
                         finish_reason=choice.get("finish_reason"), raw=body, usage=usage,
                         models=[body.get("model")])


def oai_stream_result(exchange: Exchange, chunks: list[dict[str, Any]], kind: str) -> OaiCompletion:
    """A streamed OpenAI answer: ``text/event-stream``, one choice per chunk, content joined."""
    content_type = exchange.header("Content-Type") or ""
    expect(content_type.startswith("text/event-stream"),
           f"a streamed completion must be text/event-stream, is {content_type!r}", exchange)
    expect(len(chunks) > 0, "the stream carried no chunk", exchange)
    content, content_chunks, usage, finish = "", 0, None, None
    for chunk in chunks:
        usage = chunk.get("usage") or usage
        if not chunk.get("choices"):
            continue
        expect_equal(len(chunk["choices"]), 1, "choices per stream chunk", exchange)
        choice = chunk["choices"][0]
        piece = (choice.get("delta") or {}).get("content") if kind == "message" else choice.get("text")
        if piece:
            content += piece
            content_chunks += 1
        finish = choice.get("finish_reason") or finish
    predicted = usage["completion_tokens"] if usage else content_chunks
    return OaiCompletion(content=content, predicted_n=predicted, exchange=exchange, finish_reason=finish,
                         usage=usage, models=[chunk.get("model") for chunk in chunks], chunks=chunks)


def oai_chat_result(exchange: Exchange, streaming: bool, kind: str = "message") -> OaiCompletion:
    """Check a raw OpenAI answer (status, CORS, headers, one choice per chunk) and turn it into a result."""
    expect_status(exchange, 200)
    expect_equal(exchange.header("Access-Control-Allow-Origin"), CORS_TEST_ORIGIN,
                 "Access-Control-Allow-Origin", exchange)
    if streaming:
        events = exchange.events or []
        expect(bool(events) and events[-1].data == "[DONE]", "the stream must end with 'data: [DONE]'", exchange)
        return oai_stream_result(exchange, exchange.data_events(), kind)
    return oai_plain_result(exchange, exchange.body, kind)


def usage_of(result: OaiCompletion) -> dict[str, Any]:
    expect(result.usage is not None, "the answer carries no usage (a stream without stream_options.include_usage?)",
           result.exchange)
    return result.usage
