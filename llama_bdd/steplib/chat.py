"""OpenAI-compatible chat completions, through the official ``openai`` v1 client and through raw HTTP."""

from __future__ import annotations

import json
from typing import Any

import openai

from llama_bdd.harness.http import Exchange

from . import completion  # noqa: F401 - request and completion steps first
from .core import expect, expect_equal, expect_status, state_of, step
from .state import CORS_TEST_ORIGIN, Completion, RequestDraft

OPENAI_TIMEOUT = 120.0
NO_KEY = "nope"  # the openai client insists on some key


def chat_messages(draft: RequestDraft, user_prompt: str) -> list[dict[str, str]]:
    messages = []
    if draft.system_prompt is not None:
        messages.append({"role": "system", "content": draft.system_prompt})
    messages.append({"role": "user", "content": user_prompt})
    return messages


def chat_payload(draft: RequestDraft, user_prompt: str) -> dict[str, Any]:
    payload: dict[str, Any] = {"messages": chat_messages(draft, user_prompt), "stream": draft.streaming,
                               "seed": draft.effective_seed, **draft.fields}
    if draft.model is not None:
        payload["model"] = draft.model
    if draft.n_predict is not None:
        payload["max_tokens"] = draft.n_predict
    if draft.streaming:
        payload.setdefault("stream_options", {"include_usage": True})
    return payload


def openai_client(base_url: str, api_key: str | None, v1: bool = True) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{base_url}/v1" if v1 else base_url, api_key=api_key or NO_KEY,
                         max_retries=0, timeout=OPENAI_TIMEOUT)


def exchange_from_openai(url: str, payload: dict[str, Any], api_key: str | None, response: Any) -> Exchange:
    """An Exchange for failure reports, made from what the openai client sent and got back."""
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {api_key or NO_KEY}"}
    exchange = Exchange(method="POST", url=url, request_headers=headers, request_body=json.dumps(payload).encode())
    if response is not None:
        exchange.status = response.status_code
        exchange.response_headers = dict(response.headers)
        exchange.response_text = response.text
    return exchange


def chat_with_openai_client(context: Any, user_prompt: str, expect_api_error: bool) -> Completion | None:
    """One chat completion via ``openai.OpenAI``; None when the expected authentication error came."""
    state = state_of(context)
    draft = state.request
    payload = chat_payload(draft, user_prompt)
    client = openai_client(state.client().base_url, draft.user_api_key)
    url = f"{state.client().base_url}/v1/chat/completions"
    arguments = {k: v for k, v in payload.items() if k not in ("messages", "model", "stream", "max_tokens",
                                                               "seed", "stream_options")}
    try:
        if draft.streaming:
            stream = client.chat.completions.create(
                messages=payload["messages"], model=draft.model or "llama-bdd", max_tokens=draft.n_predict,
                stream=True, seed=draft.effective_seed, stream_options={"include_usage": True}, extra_body=arguments)
            content, chunks, usage, finish = "", [], None, None
            for chunk in stream:
                chunks.append(chunk.model_dump_json())
                if chunk.usage is not None:
                    usage = chunk.usage
                for choice in chunk.choices:
                    content += choice.delta.content or ""
                    finish = choice.finish_reason or finish
            exchange = exchange_from_openai(url, payload, draft.user_api_key, None)
            exchange.status, exchange.response_text = 200, "\n".join(chunks)
            state.results.background.append(exchange)
            expect(expect_api_error is False, "expected an authentication error, the stream succeeded", exchange)
            predicted = usage.completion_tokens if usage is not None else len(chunks)
            return Completion(content=content, predicted_n=predicted, exchange=exchange, finish_reason=finish)
        raw = client.chat.completions.with_raw_response.create(
            messages=payload["messages"], model=draft.model or "llama-bdd", max_tokens=draft.n_predict,
            seed=draft.effective_seed, extra_body=arguments)
        exchange = exchange_from_openai(url, payload, draft.user_api_key, raw.http_response)
        state.results.background.append(exchange)
        expect(not expect_api_error, "expected an authentication error, the request succeeded", exchange)
        reply = raw.parse()
        expect_equal(len(reply.choices), 1, "number of choices", exchange)
        return Completion(content=reply.choices[0].message.content or "",
                          predicted_n=reply.usage.completion_tokens, exchange=exchange,
                          finish_reason=reply.choices[0].finish_reason, raw=reply)
    except openai.APIStatusError as error:
        exchange = exchange_from_openai(url, payload, draft.user_api_key, error.response)
        state.results.background.append(exchange)
        if expect_api_error and isinstance(error, openai.AuthenticationError):
            expect_equal(exchange.body.get("error", {}).get("type"), "authentication_error",
                         "error.type of the 401 response", exchange)
            return None
        raise AssertionError(f"the openai client raised {type(error).__name__}: {error}\n{exchange.describe()}")
    except openai.APIConnectionError as error:
        raise AssertionError(f"the openai client could not reach {url}: {error}") from None


def oai_chat_result(exchange: Exchange, streaming: bool) -> Completion:
    """Check a raw OpenAI chat response (headers, one choice per chunk) and turn it into a result."""
    expect_status(exchange, 200)
    expect_equal(exchange.header("Access-Control-Allow-Origin"), CORS_TEST_ORIGIN,
                 "Access-Control-Allow-Origin", exchange)
    if streaming:
        expect(exchange.header("Content-Type", ) is not None
               and exchange.header("Content-Type").startswith("text/event-stream"),
               "a streamed chat completion must be text/event-stream", exchange)
        events = exchange.events or []
        expect(bool(events) and events[-1].data == "[DONE]", "the stream must end with 'data: [DONE]'", exchange)
        content, content_chunks, usage, finish = "", 0, None, None
        for chunk in exchange.data_events():
            usage = chunk.get("usage") or usage
            if not chunk.get("choices"):
                continue
            expect_equal(len(chunk["choices"]), 1, "choices per stream chunk", exchange)
            choice = chunk["choices"][0]
            delta = choice.get("delta", {}).get("content")
            if delta:
                content += delta
                content_chunks += 1
            finish = choice.get("finish_reason") or finish
        predicted = usage["completion_tokens"] if usage else content_chunks
        return Completion(content=content, predicted_n=predicted, exchange=exchange, finish_reason=finish)
    expect_equal(exchange.header("Content-Type"), "application/json; charset=utf-8", "Content-Type", exchange)
    body = exchange.body
    expect_equal(len(body["choices"]), 1, "number of choices", exchange)
    return Completion(content=body["choices"][0]["message"]["content"] or "",
                      predicted_n=body["usage"]["completion_tokens"], exchange=exchange,
                      finish_reason=body["choices"][0].get("finish_reason"), raw=body)


@step("an OAI compatible chat completions request with {api_error} api error")
def step_oai_chat_request(context: Any, api_error: str) -> None:
    """Send the last queued user prompt through the official openai client (``max_retries=0``).

    ``raised`` expects ``openai.AuthenticationError`` (HTTP 401, ``authentication_error``).

        Given a user prompt Write a joke about AI
        And   an OAI compatible chat completions request with no api error
    """
    if api_error not in ("no", "raised"):
        raise AssertionError(f"'{api_error} api error': say 'no' or 'raised'")
    state = state_of(context)
    expect(bool(state.request.prompts), "no user prompt queued: add 'Given a user prompt ...' first")
    result = chat_with_openai_client(context, state.request.prompts.pop(), api_error == "raised")
    if result is not None:
        state.results.completions.append(result)
