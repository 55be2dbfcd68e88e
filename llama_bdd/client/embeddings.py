"""Embeddings: native ``/embedding`` and ``/embeddings``, OpenAI ``/v1/embeddings`` (openai client and raw HTTP).

A native answer is a list of ``{index, embedding}`` (one vector per token when the server pools nothing,
else one per input); the OpenAI one is ``{"object": "list", "data": [{index, embedding}], "model", "usage"}``,
with ``embedding`` a list of floats or, with ``encoding_format`` base64, little-endian float32 in base64.
"""

from __future__ import annotations

import base64
import math
import struct
from dataclasses import dataclass
from typing import Any

import openai

from llama_bdd.harness.http import Exchange, HttpClient

from .checks import JSON_CONTENT_TYPE, expect, expect_equal, expect_status
from .openai_api import exchange_from_openai, openai_client
from .request import CORS_TEST_ORIGIN, RequestDraft

NORM_TOLERANCE = 1e-3
# two vectors are "identical" when no component differs by more than this (float32 round trips included),
# "different" when at least one component differs by more than DIFFERENT_COMPONENT
IDENTICAL_COMPONENT = 1e-4
DIFFERENT_COMPONENT = 1e-3


# ----------------------------------------------------------------------------------------------
# routes and replies
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class EmbeddingRoute:
    """How a step asks for embeddings: the endpoint, through the openai client or not, the encoding."""

    phrase: str
    path: str
    client: bool = False
    encoding: str | None = None  # encoding_format sent; None leaves it out

    @property
    def openai_compatible(self) -> bool:
        return self.path == "/v1/embeddings"

    @classmethod
    def parse(cls, phrase: str) -> "EmbeddingRoute":
        """``the openai client [with encoding_format float|base64]``, ``POST /v1/embeddings [with ...]``,
        ``POST /embedding`` or ``POST /embeddings``."""
        text = phrase.strip()
        base, _, encoding = text.partition(" with encoding_format ")
        encoding = encoding.strip() or None
        if encoding not in (None, "float", "base64"):
            raise AssertionError(f"encoding_format '{encoding}' in '{phrase}': use float or base64")
        if base == "the openai client":
            return cls(text, "/v1/embeddings", client=True, encoding=encoding)
        if base == "POST /v1/embeddings":
            return cls(text, "/v1/embeddings", encoding=encoding)
        if base in ("POST /embedding", "POST /embeddings") and encoding is None:
            return cls(text, base.split(" ", 1)[1])
        raise AssertionError(
            f"unknown embedding route '{phrase}': say 'the openai client', 'the openai client with "
            f"encoding_format float|base64', 'POST /v1/embeddings [with encoding_format float|base64]', "
            f"'POST /embedding' or 'POST /embeddings'")


@dataclass
class EmbeddingReply:
    """A successful embeddings answer: the vectors of each input (sorted by ``index``) and what came with them."""

    route: EmbeddingRoute
    inputs: list[Any]  # what was embedded, one entry per input
    vectors: dict[int, list[list[float]]]  # index -> vectors (one when pooled, one per token when not)
    indexes: list[int]  # the ``index`` of each item, in the order the response listed them
    exchange: Exchange
    usage: dict[str, Any] | None = None
    model: str | None = None
    single_input: bool = False  # the request's input was one string or one token array, not a list

    def pooled(self, index: int) -> list[float]:
        vectors = self.vectors.get(index)
        expect(vectors is not None, f"the answer has no item with index {index} "
                                    f"(indexes: {sorted(self.vectors)})", self.exchange)
        expect_equal(len(vectors), 1, f"vectors of input {index} (a pooled embedding is one vector)",
                     self.exchange)
        return vectors[0]


def decode_base64_vector(encoded: str) -> list[float]:
    """An OpenAI base64 embedding: little-endian float32 values."""
    raw = base64.b64decode(encoded)
    expect(len(raw) % 4 == 0, f"a base64 embedding decodes to {len(raw)} bytes, not a whole number of float32")
    return list(struct.unpack(f"<{len(raw) // 4}f", raw))


def _vector_of(value: Any, exchange: Exchange) -> list[float]:
    if isinstance(value, str):
        return decode_base64_vector(value)
    expect(isinstance(value, list) and all(isinstance(x, (int, float)) for x in value),
           f"an embedding should be a list of numbers or a base64 string, got {type(value).__name__}", exchange)
    return [float(x) for x in value]


def native_vectors(exchange: Exchange) -> list[list[float]]:
    """Vectors of a native ``/embedding`` answer: one per token (pooling none) or one per input."""
    expect_status(exchange, 200)
    body = exchange.body
    expect(isinstance(body, list) and all(isinstance(item, dict) and "embedding" in item for item in body),
           "a native embeddings answer is a list of {index, embedding}", exchange)
    vectors: list[list[float]] = []
    for item in body:
        embedding = item["embedding"]
        vectors.extend(embedding if embedding and isinstance(embedding[0], list) else [embedding])
    return vectors


def oai_vectors(exchange: Exchange, model: str | None) -> list[list[float]]:
    """Vectors of a raw ``/v1/embeddings`` answer, in input order, after the response-level checks."""
    expect_status(exchange, 200)
    expect_equal(exchange.header("Access-Control-Allow-Origin"), CORS_TEST_ORIGIN,
                 "Access-Control-Allow-Origin", exchange)
    expect_equal(exchange.header("Content-Type"), JSON_CONTENT_TYPE, "Content-Type", exchange)
    body = exchange.body
    expect_equal(body.get("object"), "list", "object of the embeddings response", exchange)
    if model is not None:
        expect_equal(body.get("model"), model, "model of the embeddings response", exchange)
    data = sorted(body["data"], key=lambda item: item["index"])
    return [_vector_of(item["embedding"], exchange) for item in data]


def assert_vector(vector: list[float], where: str, exchange: Exchange | None = None) -> None:
    expect(len(vector) > 0, f"{where}: the embedding is empty", exchange)
    expect(any(value != 0 for value in vector), f"{where}: every value of the embedding is 0", exchange)
    expect(all(math.isfinite(value) for value in vector), f"{where}: the embedding has NaN or infinite values",
           exchange)


def l2_norm(vector: list[float]) -> float:
    return math.sqrt(sum(value * value for value in vector))


def largest_difference(first: list[float], second: list[float]) -> float:
    if len(first) != len(second):
        return math.inf
    return max((abs(a - b) for a, b in zip(first, second)), default=0.0)


def cosine(first: list[float], second: list[float]) -> float:
    norms = l2_norm(first) * l2_norm(second)
    return sum(a * b for a, b in zip(first, second)) / norms if norms else 0.0


def request_headers(draft: RequestDraft) -> dict[str, str]:
    return {"Origin": CORS_TEST_ORIGIN, **draft.auth_headers()}


def send_embedding_request(http: HttpClient, draft: RequestDraft, client_model: str, route: EmbeddingRoute,
                           inputs: Any) -> tuple[Exchange, Any]:
    """Send ``inputs`` (a string, a token list, or a list of them) through ``route``; nothing is checked.

    Returns the exchange and, for the openai client, the raw reply or the status error it raised.
    """
    if not route.client:
        if route.openai_compatible:
            body: dict[str, Any] = {"input": inputs}
            if draft.model is not None:
                body["model"] = draft.model
            if route.encoding is not None:
                body["encoding_format"] = route.encoding
        else:
            body = {"content": inputs}
        body.update(draft.fields)
        return http.post(route.path, body, headers=request_headers(draft)), None
    client = openai_client(http.base_url, draft.user_api_key)
    arguments: dict[str, Any] = {"input": inputs, "model": client_model}
    if route.encoding is not None:
        arguments["encoding_format"] = route.encoding
    if draft.fields:
        arguments["extra_body"] = dict(draft.fields)
    try:
        raw = client.embeddings.with_raw_response.create(**arguments)
        response, outcome = raw.http_response, raw
    except openai.APIStatusError as error:
        response, outcome = error.response, error
    except openai.APIConnectionError as error:
        raise AssertionError(f"the openai client could not reach {http.base_url}{route.path}: {error}") from None
    return exchange_from_openai("", {}, draft.user_api_key, response), outcome


def embedding_reply(route: EmbeddingRoute, inputs: Any, exchange: Exchange, outcome: Any) -> EmbeddingReply:
    """A successful answer to ``send_embedding_request``, checked and turned into an ``EmbeddingReply``."""
    if isinstance(outcome, openai.APIStatusError):
        raise AssertionError(f"the openai client raised {type(outcome).__name__}: {outcome}\n{exchange.describe()}")
    expect_status(exchange, 200)
    single = isinstance(inputs, str) or (isinstance(inputs, list) and all(isinstance(x, int) for x in inputs))
    input_list = [inputs] if single else list(inputs)
    reply = EmbeddingReply(route=route, inputs=input_list, vectors={}, indexes=[], exchange=exchange,
                           single_input=single)
    if route.client:
        parsed = outcome.parse()
        reply.model, reply.usage = parsed.model, parsed.usage.model_dump() if parsed.usage else None
        items = [(item.index, item.embedding) for item in parsed.data]
    elif route.openai_compatible:
        body = exchange.body
        expect(isinstance(body, dict) and isinstance(body.get("data"), list),
               "an OpenAI embeddings answer is an object with a 'data' list", exchange)
        expect_equal(body.get("object"), "list", "object of the embeddings response", exchange)
        reply.model, reply.usage = body.get("model"), body.get("usage")
        items = [(item.get("index"), item.get("embedding")) for item in body["data"]]
    else:
        body = exchange.body
        expect(isinstance(body, list), "a native embeddings answer is a list of {index, embedding}", exchange)
        items = [(item.get("index"), item.get("embedding")) for item in body]
    for index, embedding in items:
        expect(isinstance(index, int), f"an item of the answer has no integer index: {index!r}", exchange)
        expect(index not in reply.vectors, f"index {index} appears twice in the answer", exchange)
        reply.indexes.append(index)
        if isinstance(embedding, list) and embedding and isinstance(embedding[0], list):
            reply.vectors[index] = [_vector_of(vector, exchange) for vector in embedding]  # native: [[...], ...]
        else:
            reply.vectors[index] = [_vector_of(embedding, exchange)]
    return reply


def model_embedding_size(http: HttpClient, headers: dict[str, str]) -> tuple[int | None, str]:
    """The model's embedding size from ``/v1/models`` (``meta.n_embd``), and where it came from."""
    exchange = http.get("/v1/models", headers=headers)
    size: int | None = None
    if exchange.status == 200:
        for model in exchange.body.get("data") or []:
            n_embd = (model.get("meta") or {}).get("n_embd")
            if isinstance(n_embd, int):
                size = n_embd
                break
    source = ("meta.n_embd of GET /v1/models" if size is not None
              else "the first embedding (GET /v1/models has no n_embd)")
    return size, source


def expect_identical(reply: EmbeddingReply, first: int, second: int) -> None:
    """The vectors of inputs i and j (by ``index``) are the same, component by component (within 1e-4)."""
    a, b = reply.pooled(first), reply.pooled(second)
    difference = largest_difference(a, b)
    expect(difference <= IDENTICAL_COMPONENT,
           f"embeddings {first} ({reply.inputs[first]!r}) and {second} ({reply.inputs[second]!r}) should be "
           f"identical: components differ by up to {difference:.6g}, cosine {cosine(a, b):.6f}", reply.exchange)


def expect_different(reply: EmbeddingReply, first: int, second: int) -> None:
    """The vectors of inputs i and j differ (some component by more than 1e-3)."""
    a, b = reply.pooled(first), reply.pooled(second)
    expect(largest_difference(a, b) > DIFFERENT_COMPONENT,
           f"embeddings {first} ({reply.inputs[first]!r}) and {second} ({reply.inputs[second]!r}) should differ, "
           f"but they are the same (cosine {cosine(a, b):.6f})", reply.exchange)


def error_message(exchange: Exchange) -> str:
    """``error.message`` of a JSON error answer."""
    body = exchange.body
    message = body.get("error", {}).get("message") if isinstance(body, dict) else None
    expect(isinstance(message, str), "the answer has no error.message", exchange)
    return message
