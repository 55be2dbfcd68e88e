"""OpenAI-compatible text completions (``/v1/completions``), the model list and the server properties.

``/v1/completions`` answers ``choices[0].text`` with ``usage`` and ``finish_reason`` like chat does;
``/v1/models`` lists the model under its alias; ``/props`` reports ``total_slots`` and the context of one
slot (``default_generation_settings.n_ctx``, the ``--ctx-size`` divided among the slots).
"""

from __future__ import annotations

import json
import time
from typing import Any

import openai

from . import chat  # chat steps first (registration order), and its helpers
from .chat import (NO_KEY, OaiCompletion, exchange_from_openai, oai_chat_result, oai_plain_result,
                   oai_stream_result, openai_client, raw_headers, send_raw)
from .completion import pop_prompt
from .core import expect, expect_equal, expect_status, state_of, step
from .state import RequestDraft

TEXT_COMPLETIONS_PATH = "/v1/completions"


def text_completion_payload(draft: RequestDraft, prompt: Any) -> dict[str, Any]:
    return chat.openai_payload(draft, {"prompt": prompt})


def text_completion_with_openai_client(context: Any, prompt: str) -> OaiCompletion:
    state = state_of(context)
    draft = state.request
    payload = text_completion_payload(draft, prompt)
    base_url = state.client().base_url
    url = base_url + TEXT_COMPLETIONS_PATH
    named = ("prompt", "model", "stream", "max_tokens", "seed", "stream_options")
    arguments: dict[str, Any] = {"prompt": prompt, "model": draft.model or "llama-bdd", "seed": draft.effective_seed,
                                 "extra_body": {k: v for k, v in payload.items() if k not in named}}
    if draft.n_predict is not None:
        arguments["max_tokens"] = draft.n_predict
    if draft.streaming:
        arguments.update(stream=True, stream_options=payload["stream_options"])
    client = openai_client(base_url, draft.user_api_key)
    started = time.monotonic()
    try:
        raw = client.completions.with_raw_response.create(**arguments)
        if draft.streaming:
            exchange = exchange_from_openai(url, payload, draft.user_api_key, None)
            exchange.status, exchange.response_headers = raw.status_code, dict(raw.headers)
            chunks = [chunk.model_dump(exclude_unset=True) for chunk in raw.parse()]
            exchange.response_text = "\n".join(json.dumps(chunk) for chunk in chunks)
            result = oai_stream_result(exchange, chunks, "text")
        else:
            exchange = exchange_from_openai(url, payload, draft.user_api_key, raw.http_response)
            result = oai_plain_result(exchange, raw.parse().model_dump(exclude_unset=True), "text")
    except openai.APIStatusError as error:
        exchange = exchange_from_openai(url, payload, draft.user_api_key, error.response)
        state.results.background.append(exchange)
        raise AssertionError(f"the openai client raised {type(error).__name__}: {error}\n{exchange.describe()}")
    except openai.APIConnectionError as error:
        raise AssertionError(f"the openai client could not reach {url}: {error}") from None
    exchange.elapsed = time.monotonic() - started
    state.results.background.append(exchange)
    state.results.last = exchange
    result.client = "the openai client"
    return result


@step("a text completion is requested from /v1/completions with {client}")
def step_text_completion(context: Any, client: str) -> None:
    """Send the last queued prompt to ``/v1/completions``: ``the openai client`` or ``raw HTTP`` (aiohttp).

    Streams when ``streaming is enabled``.

        When a text completion is requested from /v1/completions with the openai client
        When a text completion is requested from /v1/completions with raw HTTP
    """
    state = state_of(context)
    prompt = pop_prompt(context)
    if client == "the openai client":
        result = text_completion_with_openai_client(context, prompt)
    elif client == "raw HTTP":
        draft = state.request
        exchange = send_raw(context, TEXT_COMPLETIONS_PATH, text_completion_payload(draft, prompt),
                            raw_headers(draft))
        result = oai_chat_result(exchange, draft.streaming, kind="text")
    else:
        raise AssertionError(f"unknown client '{client}': use 'the openai client' or 'raw HTTP'")
    state.results.completions.append(result)


@step("the openai client lists the model {model}")
def step_openai_lists_model(context: Any, model: str) -> None:
    """``client.models.list()`` (``/v1/models``) returns exactly one model, with this id.

        Then the openai client lists the model smollm2
    """
    state = state_of(context)
    client = openai_client(state.client().base_url, state.request.user_api_key)
    url = f"{state.client().base_url}/v1/models"
    try:
        raw = client.models.with_raw_response.list()
    except openai.APIError as error:
        raise AssertionError(f"the openai client could not list the models at {url}: {error}") from None
    exchange = exchange_from_openai(url, {}, state.request.user_api_key or NO_KEY, raw.http_response)
    exchange.method, exchange.request_body = "GET", None
    state.results.background.append(exchange)
    state.results.last = exchange
    expect_equal([entry.id for entry in raw.parse().data], [model], "model ids listed by /v1/models", exchange)


@step("the server properties report the configured context and slots")
def step_props_report_configuration(context: Any) -> None:
    """``/props``: ``total_slots`` is the slot count and ``default_generation_settings.n_ctx`` the context per slot.

    The context per slot is the configured ``--ctx-size`` divided by ``--parallel``.

        Then the server properties report the configured context and slots
    """
    state = state_of(context)
    config = state.config
    expect(config.n_ctx is not None and config.n_slots is not None,
           "configure both the KV cache size and the slots ('Given 512 KV cache size', 'Given 2 slots')")
    props = expect_status(state.client().get("/props"), 200)
    state.results.last = props
    expect_equal(props.body.get("total_slots"), config.n_slots, "total_slots in /props", props)
    settings = props.body.get("default_generation_settings")
    expect(isinstance(settings, dict), "/props has no default_generation_settings", props)
    expect_equal(settings.get("n_ctx"), config.n_ctx // config.n_slots,
                 f"default_generation_settings.n_ctx ({config.n_ctx} tokens over {config.n_slots} slots)", props)
