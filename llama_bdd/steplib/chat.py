"""OpenAI-compatible chat completions, through the official ``openai`` v1 client and through raw HTTP (aiohttp).

Both routes, ``/v1/chat/completions`` and ``/chat/completions``, answer the same way: ``choices`` (one),
``usage`` (``prompt_tokens``, ``completion_tokens``, ``total_tokens``), ``finish_reason`` ``stop`` or
``length``, and ``model`` set to the server's alias whatever the request named. Streamed, the answer is
``text/event-stream``: one choice per chunk, a last chunk with no choices that carries ``usage`` when
``stream_options.include_usage`` asks for it, and ``data: [DONE]`` at the end.
"""

from __future__ import annotations

import concurrent.futures
import json
import time
from dataclasses import dataclass, field
from typing import Any

import openai

from llama_bdd.harness.http import DEFAULT_TIMEOUT, Exchange, async_request
from llama_bdd.harness.timing import timed

from . import completion  # noqa: F401 - request and completion steps first
from .api import JSON_CONTENT_TYPE
from .completion import last_completion
from .core import expect, expect_equal, expect_status, state_of, step
from .lifecycle import suite_of
from .state import CORS_TEST_ORIGIN, Completion, RequestDraft
from .tokenize import tokenize

OPENAI_TIMEOUT = 120.0
NO_KEY = "nope"  # the openai client insists on some key


@dataclass
class ChatState:
    """What the chat steps remember between steps of a scenario."""

    # the prompt ``/apply-template`` rendered, the messages it was given, and its exchange
    rendered: tuple[str, list[dict[str, str]], Exchange] | None = None


@dataclass
class OaiCompletion(Completion):
    """An OpenAI-compatible answer: what ``Completion`` has, plus usage, the model names and stream chunks."""

    usage: dict[str, Any] | None = None
    models: list[str] = field(default_factory=list)  # ``model`` of the answer, or of every stream chunk
    chunks: list[dict[str, Any]] | None = None  # the JSON chunks of a stream (None when not streamed)
    client: str = "raw HTTP"


def chat_messages(draft: RequestDraft, user_prompt: str) -> list[dict[str, str]]:
    messages = []
    if draft.system_prompt is not None:
        messages.append({"role": "system", "content": draft.system_prompt})
    messages.append({"role": "user", "content": user_prompt})
    return messages


def chat_payload(draft: RequestDraft, user_prompt: str) -> dict[str, Any]:
    return openai_payload(draft, {"messages": chat_messages(draft, user_prompt)})


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


class _TimedHttpClient(openai.DefaultHttpxClient):
    """The openai client's HTTP client, counting its time as time spent waiting on the server."""

    def send(self, *args: Any, **kwargs: Any) -> Any:
        with timed("http"):
            return super().send(*args, **kwargs)


_HTTP_CLIENT: _TimedHttpClient | None = None


def openai_client(base_url: str, api_key: str | None, v1: bool = True) -> openai.OpenAI:
    global _HTTP_CLIENT
    if _HTTP_CLIENT is None:  # one for the run: each new one builds an SSL context, which is slow
        _HTTP_CLIENT = _TimedHttpClient(trust_env=False)
    return openai.OpenAI(base_url=f"{base_url}/v1" if v1 else base_url, api_key=api_key or NO_KEY,
                         http_client=_HTTP_CLIENT,
                         max_retries=0, timeout=OPENAI_TIMEOUT)


def exchange_from_openai(url: str, payload: dict[str, Any], api_key: str | None, response: Any) -> Exchange:
    """An Exchange for failure reports from an openai-client call: the request exactly as the client sent it
    when its HTTP response is at hand, else rebuilt from ``url`` and ``payload``."""
    request = getattr(response, "request", None)
    if request is not None:
        exchange = Exchange(method=request.method, url=str(request.url), request_headers=dict(request.headers),
                            request_body=request.content or None)
    else:
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {api_key or NO_KEY}"}
        exchange = Exchange(method="POST", url=url, request_headers=headers,
                            request_body=json.dumps(payload).encode())
    if response is not None:
        exchange.status = response.status_code
        exchange.response_headers = dict(response.headers)
        exchange.response_text = response.text
    return exchange


def send_raw(context: Any, path: str, payload: Any, headers: dict[str, str]) -> Exchange:
    """One request through aiohttp on the suite's event loop, waited for (bounded)."""
    state = state_of(context)
    future = suite_of(context).loop.submit(async_request("POST", state.client().base_url + path, payload,
                                                         headers=headers, timeout=DEFAULT_TIMEOUT))
    try:
        exchange = future.result(timeout=DEFAULT_TIMEOUT + 10)
    except concurrent.futures.TimeoutError:
        future.cancel()
        raise AssertionError(f"POST {path} got no answer within {DEFAULT_TIMEOUT + 10:.0f}s") from None
    state.results.background.append(exchange)
    state.results.last = exchange
    return exchange


def raw_headers(draft: RequestDraft) -> dict[str, str]:
    return {"Authorization": f"Bearer {draft.user_api_key or NO_KEY}", "Origin": CORS_TEST_ORIGIN}


def _openai_arguments(draft: RequestDraft, payload: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments of ``chat.completions.create``; payload fields it has no parameter for go in extra_body."""
    named = ("messages", "model", "stream", "max_tokens", "seed", "stream_options")
    arguments: dict[str, Any] = {"messages": payload["messages"], "model": draft.model or "llama-bdd",
                                 "seed": draft.effective_seed,
                                 "extra_body": {k: v for k, v in payload.items() if k not in named}}
    if draft.n_predict is not None:
        arguments["max_tokens"] = draft.n_predict
    if draft.streaming:
        arguments["stream"] = True
        arguments["stream_options"] = payload["stream_options"]
    return arguments


def chat_with_openai_client(context: Any, user_prompt: str, expect_api_error: bool,
                            v1: bool = True) -> OaiCompletion | None:
    """One chat completion via ``openai.OpenAI``; None when the expected authentication error came."""
    state = state_of(context)
    draft = state.request
    payload = chat_payload(draft, user_prompt)
    base_url = state.client().base_url
    client = openai_client(base_url, draft.user_api_key, v1=v1)
    url = f"{base_url}{'/v1' if v1 else ''}/chat/completions"
    started = time.monotonic()
    try:
        raw = client.chat.completions.with_raw_response.create(**_openai_arguments(draft, payload))
        if draft.streaming:
            exchange = exchange_from_openai(url, payload, draft.user_api_key, None)
            exchange.status, exchange.response_headers = raw.status_code, dict(raw.headers)
            chunks = [chunk.model_dump(exclude_unset=True) for chunk in raw.parse()]
            exchange.response_text = "\n".join(json.dumps(chunk) for chunk in chunks)
        else:
            exchange = exchange_from_openai(url, payload, draft.user_api_key, raw.http_response)
            reply = raw.parse()
        exchange.elapsed = time.monotonic() - started
        state.results.background.append(exchange)
        state.results.last = exchange
        expect(not expect_api_error, "expected an authentication error, the request succeeded", exchange)
        if draft.streaming:
            result = oai_stream_result(exchange, chunks, "message")
        else:
            result = oai_plain_result(exchange, reply.model_dump(exclude_unset=True), "message")
        result.client = "the openai client"
        return result
    except openai.APIStatusError as error:
        exchange = exchange_from_openai(url, payload, draft.user_api_key, error.response)
        state.results.background.append(exchange)
        state.results.last = exchange
        if expect_api_error and isinstance(error, openai.AuthenticationError):
            completion.expect_unauthorized(exchange)
            return None
        raise AssertionError(f"the openai client raised {type(error).__name__}: {error}\n{exchange.describe()}")
    except openai.APIConnectionError as error:
        raise AssertionError(f"the openai client could not reach {url}: {error}") from None


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


def last_oai_result(context: Any) -> OaiCompletion:
    completions = state_of(context).results.completions
    expect(bool(completions), "no completion result to check: send a request first")
    result = completions[-1]
    expect(isinstance(result, OaiCompletion), "this check needs an OpenAI-compatible answer (chat or /v1/completions)",
           result.exchange)
    return result


def usage_of(result: OaiCompletion) -> dict[str, Any]:
    expect(result.usage is not None, "the answer carries no usage (a stream without stream_options.include_usage?)",
           result.exchange)
    return result.usage


# ----------------------------------------------------------------------------------------------
# sending
# ----------------------------------------------------------------------------------------------

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
    result = chat_with_openai_client(context, completion.pop_prompt(context, "user prompt"), api_error == "raised")
    if result is not None:
        state.results.completions.append(result)


@step("a chat completion is requested from {path} with {client}")
def step_chat_completion_from(context: Any, path: str, client: str) -> None:
    """Send the last queued user prompt (and the system prompt) to a chat route.

    ``the openai client`` (``openai.OpenAI``, ``max_retries=0``) or ``raw HTTP`` (aiohttp); the route is
    ``/v1/chat/completions`` or ``/chat/completions``. Streams when ``streaming is enabled``.

        When a chat completion is requested from /chat/completions with the openai client
        When a chat completion is requested from /v1/chat/completions with raw HTTP
    """
    state = state_of(context)
    expect(path in ("/v1/chat/completions", "/chat/completions"),
           f"unknown chat route {path}: use /v1/chat/completions or /chat/completions")
    prompt = completion.pop_prompt(context, "user prompt")
    if client == "the openai client":
        result = chat_with_openai_client(context, prompt, False, v1=path.startswith("/v1/"))
    elif client == "raw HTTP":
        draft = state.request
        exchange = send_raw(context, path, chat_payload(draft, prompt), raw_headers(draft))
        result = oai_chat_result(exchange, draft.streaming)
    else:
        raise AssertionError(f"unknown client '{client}': use 'the openai client' or 'raw HTTP'")
    state.results.completions.append(result)


@step("the chat template is applied to the prompts")
def step_apply_template(context: Any) -> None:
    """``/apply-template`` renders the system prompt and the last queued user prompt (which stays queued).

        When the chat template is applied to the prompts
    """
    state = state_of(context)
    expect(bool(state.request.prompts), "no user prompt queued: add 'Given a user prompt ...' first")
    messages = chat_messages(state.request, state.request.prompts[-1])
    exchange = expect_status(state.client().post("/apply-template", {"messages": messages}), 200)
    state.results.last = exchange
    prompt = exchange.body.get("prompt")
    expect(isinstance(prompt, str) and prompt != "", "/apply-template answered no prompt", exchange)
    state.part(ChatState).rendered = (prompt, messages, exchange)


def rendered_prompt(context: Any) -> tuple[str, list[dict[str, str]], Exchange]:
    entry = state_of(context).part(ChatState).rendered
    expect(entry is not None, "no template applied yet: add 'When the chat template is applied to the prompts'")
    return entry


@step("the rendered prompt holds every message in order")
def step_rendered_prompt_in_order(context: Any) -> None:
    """Each message's content appears in the rendered prompt, in message order.

        Then the rendered prompt holds every message in order
    """
    prompt, messages, exchange = rendered_prompt(context)
    position = 0
    for message in messages:
        found = prompt.find(message["content"], position)
        expect(found >= 0, f"the {message['role']} message {message['content']!r} is missing from the rendered "
                           f"prompt after position {position}: {prompt!r}", exchange)
        position = found + len(message["content"])
    expect(position < len(prompt), "the rendered prompt must end with the assistant's turn, after the last message",
           exchange)


# ----------------------------------------------------------------------------------------------
# checks
# ----------------------------------------------------------------------------------------------

@step("the usage counts {n_tokens:d} completion tokens")
def step_usage_completion_tokens(context: Any, n_tokens: int) -> None:
    """``usage.completion_tokens`` is N and ``total_tokens`` = ``prompt_tokens`` + ``completion_tokens``.

        Then the usage counts 8 completion tokens
    """
    result = last_oai_result(context)
    usage = usage_of(result)
    expect_equal(usage.get("completion_tokens"), n_tokens, "usage.completion_tokens", result.exchange)
    expect_equal(usage.get("total_tokens"), usage.get("prompt_tokens", 0) + n_tokens,
                 "usage.total_tokens (prompt_tokens + completion_tokens)", result.exchange)


@step("the usage counts fewer than {n_tokens:d} completion tokens")
def step_usage_fewer_completion_tokens(context: Any, n_tokens: int) -> None:
    """``usage.completion_tokens`` is below N (the answer ended before its budget) and at least 1.

        Then the usage counts fewer than 8 completion tokens
    """
    result = last_oai_result(context)
    completion_tokens = usage_of(result).get("completion_tokens")
    expect(isinstance(completion_tokens, int) and 1 <= completion_tokens < n_tokens,
           f"usage.completion_tokens should be between 1 and {n_tokens - 1}, is {completion_tokens}",
           result.exchange)


@step("the usage counts the rendered prompt's tokens")
def step_usage_prompt_tokens(context: Any) -> None:
    """``usage.prompt_tokens`` equals the token count of ``/apply-template``'s rendering of the same messages.

        Then the usage counts the rendered prompt's tokens
    """
    prompt, _, _ = rendered_prompt(context)
    result = last_oai_result(context)
    expect_equal(usage_of(result).get("prompt_tokens"), len(tokenize(context, prompt, add_special=True)),
                 "usage.prompt_tokens (tokens of the rendered prompt)", result.exchange)


@step("the completion names the model {model}")
def step_completion_names_model(context: Any, model: str) -> None:
    """``model`` of the OpenAI answer (of every chunk, when streamed) is this name.

        Then the completion names the model smollm2
    """
    result = last_oai_result(context)
    expect(len(result.models) > 0, "the answer has no model", result.exchange)
    for name in result.models:
        expect_equal(name, model, "model of the answer", result.exchange)


@step("the completion content is {text}")
def step_completion_content_is(context: Any, text: str) -> None:
    """The last result's text is exactly this (chat ``message.content``, text ``text``, native ``content``).

        Then the completion content is yes
    """
    result = last_completion(context)
    expect_equal(result.content, text, "content", result.exchange)


@step("the queued prompt is posted to {path} as a chat message")
def step_prompt_posted_as_chat(context: Any, path: str) -> None:
    """Send the last queued prompt as the user message of a raw chat request; keep the answer, error or not.

    For requests the server should refuse; check the answer with ``the request is rejected with ...``.

        When the queued prompt is posted to /v1/chat/completions as a chat message
    """
    draft = state_of(context).request
    send_raw(context, path, chat_payload(draft, completion.pop_prompt(context)), raw_headers(draft))
