"""OpenAI-compatible text completions (``/v1/completions``), the model list and the server properties.

``/v1/completions`` answers ``choices[0].text`` with ``usage`` and ``finish_reason`` like chat does;
``/v1/models`` lists the model under its alias; ``/props`` reports ``total_slots`` and the context of one
slot (``default_generation_settings.n_ctx``, the ``--ctx-size`` divided among the slots).
"""

from __future__ import annotations

from typing import Any

import openai

from llama_bdd.client.openai_api import (TEXT_COMPLETIONS_PATH, exchange_from_openai,
                                         generate_with_openai_client, oai_chat_result, openai_client,
                                         raw_headers, text_completion_payload)
from llama_bdd.client.request import NO_KEY

from .core import expect, expect_equal, expect_status, state_of, step
from .core.scenario import pop_prompt, record, send_raw


@step("a text completion is requested from /v1/completions with {client}")
def step_text_completion(context: Any, client: str) -> None:
    """Send the last queued prompt to ``/v1/completions``: ``the openai client`` or ``raw HTTP`` (aiohttp).

    Streams when ``streaming is enabled``.

        When a text completion is requested from /v1/completions with the openai client
        When a text completion is requested from /v1/completions with raw HTTP
    """
    state = state_of(context)
    prompt = pop_prompt(context)
    draft = state.request
    if client == "the openai client":
        exchange, result = generate_with_openai_client(state.client().base_url, draft,
                                                       text_completion_payload(draft, prompt), "text")
        record(context, exchange)
        if isinstance(result, openai.APIStatusError):
            raise AssertionError(f"the openai client raised {type(result).__name__}: {result}\n{exchange.describe()}")
    elif client == "raw HTTP":
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
    record(context, exchange)
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
