"""Embeddings: native ``/embedding`` and OpenAI ``/v1/embeddings`` (openai client and raw HTTP)."""

from __future__ import annotations

from typing import Any

import openai

from llama_bdd.harness.http import Exchange

from . import chat
from .concurrency import gather_results, queued_prompts, send_in_background
from .core import expect, expect_equal, expect_status, state_of, step
from .state import CORS_TEST_ORIGIN


def native_vectors(exchange: Exchange) -> list[list[float]]:
    """Vectors of a native ``/embedding`` answer: one per token (pooling none) or one per input."""
    expect_status(exchange, 200)
    vectors: list[list[float]] = []
    for item in exchange.body:
        embedding = item["embedding"]
        vectors.extend(embedding if embedding and isinstance(embedding[0], list) else [embedding])
    return vectors


def oai_vectors(exchange: Exchange, model: str | None) -> list[list[float]]:
    """Vectors of a raw ``/v1/embeddings`` answer, in input order, after the response-level checks."""
    expect_status(exchange, 200)
    expect_equal(exchange.header("Access-Control-Allow-Origin"), CORS_TEST_ORIGIN,
                 "Access-Control-Allow-Origin", exchange)
    expect_equal(exchange.header("Content-Type"), "application/json; charset=utf-8", "Content-Type", exchange)
    body = exchange.body
    expect_equal(body.get("object"), "list", "object of the embeddings response", exchange)
    if model is not None:
        expect_equal(body.get("model"), model, "model of the embeddings response", exchange)
    data = sorted(body["data"], key=lambda item: item["index"])
    return [item["embedding"] for item in data]


def assert_vector(vector: list[float], where: str) -> None:
    expect(len(vector) > 0, f"{where}: the embedding is empty")
    expect(any(value != 0 for value in vector), f"{where}: every value of the embedding is 0")


def request_oai_embeddings(context: Any, inputs: Any) -> list[list[float]]:
    """Embeddings through the openai client, ``encoding_format="float"``."""
    state = state_of(context)
    draft = state.request
    client = chat.openai_client(state.client().base_url, draft.user_api_key)
    url = f"{state.client().base_url}/v1/embeddings"
    payload = {"input": inputs, "model": draft.model or "llama-bdd", "encoding_format": "float"}
    try:
        raw = client.embeddings.with_raw_response.create(**payload)
    except openai.APIStatusError as error:
        exchange = chat.exchange_from_openai(url, payload, draft.user_api_key, error.response)
        state.results.background.append(exchange)
        raise AssertionError(f"the openai client raised {type(error).__name__}\n{exchange.describe()}") from None
    state.results.background.append(chat.exchange_from_openai(url, payload, draft.user_api_key, raw.http_response))
    reply = raw.parse()
    return [item.embedding for item in sorted(reply.data, key=lambda item: item.index)]


@step("embeddings are computed for", "embeddings are computed for:")
def step_embeddings_computed_for(context: Any) -> None:
    """Ask native ``/embedding`` for the text block's embedding.

        When embeddings are computed for:
          \"\"\"
          What is the capital of Bulgaria ?
          \"\"\"
    """
    state = state_of(context)
    exchange = state.client().post("/embedding", {"content": context.text})
    state.results.embeddings = native_vectors(exchange)


@step("embeddings are generated")
def step_embeddings_generated(context: Any) -> None:
    """The last embeddings are non-empty and not all zero; one per queued input when inputs were queued.

        Then embeddings are generated
    """
    state = state_of(context)
    vectors = state.results.embeddings
    expect(bool(vectors), "no embedding was returned")
    if state.request.prompts:
        expect_equal(len(vectors), len(state.request.prompts), "number of embeddings (one per input)")
        state.request.prompts.clear()
    for index, vector in enumerate(vectors):
        assert_vector(vector, f"embedding {index}")


@step("an OAI compatible embeddings computation request for",
      "an OAI compatible embeddings computation request for:")
def step_oai_embeddings_for(context: Any) -> None:
    """Embed the text block through the openai client (``/v1/embeddings``).

        When an OAI compatible embeddings computation request for:
          \"\"\"
          What is the capital of Spain ?
          \"\"\"
    """
    state_of(context).results.embeddings = request_oai_embeddings(context, context.text)


@step("an OAI compatible embeddings computation request for multiple inputs")
def step_oai_embeddings_multiple(context: Any) -> None:
    """Embed every queued prompt in one openai-client request (``input`` is a list).

        Given a prompt I like the sun
        And   a prompt I like the moon
        When  an OAI compatible embeddings computation request for multiple inputs
    """
    state = state_of(context)
    state.results.embeddings = request_oai_embeddings(context, list(state.request.prompts))


@step("concurrent embedding requests")
def step_concurrent_embeddings(context: Any) -> None:
    """Send every queued prompt to native ``/embedding`` at once.

        Given concurrent embedding requests
    """
    for prompt in queued_prompts(context):
        send_in_background(context, "/embedding", {"content": prompt}, {}, native_vectors)


@step("concurrent OAI embedding requests")
def step_concurrent_oai_embeddings(context: Any) -> None:
    """Send every queued prompt to ``/v1/embeddings`` at once (raw HTTP).

        Given concurrent OAI embedding requests
    """
    draft = state_of(context).request
    headers = {"Authorization": f"Bearer {draft.user_api_key or chat.NO_KEY}", "Origin": CORS_TEST_ORIGIN}
    model = draft.model
    for prompt in queued_prompts(context):
        send_in_background(context, "/v1/embeddings", {"input": prompt, "model": model or "llama-bdd"}, headers,
                           lambda exchange: oai_vectors(exchange, model))


@step("all embeddings are generated")
def step_all_embeddings_generated(context: Any) -> None:
    """Every concurrent embedding request returned non-zero vectors.

        Then all embeddings are generated
    """
    results = gather_results(context)
    expect(len(results) > 0, "no concurrent embedding request was sent")
    for number, vectors in enumerate(results):
        expect(bool(vectors), f"request {number} returned no embedding")
        for index, vector in enumerate(vectors):
            assert_vector(vector, f"request {number}, embedding {index}")
