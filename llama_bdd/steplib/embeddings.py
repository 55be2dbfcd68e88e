"""Embedding steps: native ``/embedding`` and ``/embeddings``, OpenAI ``/v1/embeddings`` (openai client and raw).

Every step that gets vectors leaves them in ``results.embeddings`` (flat, one vector per pooled input, or one
per token when the server pools nothing), so the vector checks work after any of them. The steps that send
one request through a named route also keep an ``EmbeddingReply`` (inputs, indexes, usage, model) for the
checks on the response itself. What the answers look like is in ``llama_bdd.client.embeddings``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import openai

from llama_bdd.client.embeddings import (IDENTICAL_COMPONENT, NORM_TOLERANCE, EmbeddingReply, EmbeddingRoute,
                                         assert_vector, cosine, embedding_reply, error_message, expect_different,
                                         expect_identical, l2_norm, largest_difference, native_vectors,
                                         oai_vectors, request_headers, send_embedding_request)
from llama_bdd.client.embeddings import model_embedding_size as read_model_embedding_size
from llama_bdd.client.openai_api import raw_headers

from .core import expect, expect_equal, state_of, step
from .core.scenario import (gather_results, last_exchange, openai_model, queued_prompts, record,
                            send_in_background, tokenize)


@dataclass
class EmbeddingsState:
    """What the embeddings steps remember between steps of a scenario."""

    reply: EmbeddingReply | None = None  # the last answer kept for the checks on the response itself
    # the model's embedding size (None when unknown) and where it came from, asked once per scenario
    model_embedding_size: tuple[int | None, str] | None = None


def send(context: Any, route: EmbeddingRoute, inputs: Any) -> tuple[Any, Any]:
    state = state_of(context)
    exchange, outcome = send_embedding_request(state.client(), state.request, openai_model(context), route, inputs)
    if route.client:
        record(context, exchange)
    else:
        state.results.last = exchange
    return exchange, outcome


def embed(context: Any, route: EmbeddingRoute, inputs: Any, remember: bool = True) -> EmbeddingReply:
    """Send ``inputs`` through ``route``, expect success, and keep the ``EmbeddingReply``."""
    exchange, outcome = send(context, route, inputs)
    reply = embedding_reply(route, inputs, exchange, outcome)
    if remember:
        state = state_of(context)
        state.part(EmbeddingsState).reply = reply
        state.results.embeddings = [vector for index in sorted(reply.vectors) for vector in reply.vectors[index]]
    return reply


def last_reply(context: Any) -> EmbeddingReply:
    reply = state_of(context).part(EmbeddingsState).reply
    expect(isinstance(reply, EmbeddingReply),
           "no embeddings answer to check: add 'When \"...\" is embedded through ...' first")
    return reply


def tokens_of(context: Any, text: str) -> list[int]:
    """The tokens the server makes of ``text`` for a prompt (special tokens such as BOS included)."""
    tokens = tokenize(context, text)
    expect(len(tokens) > 0, f"/tokenize gave no tokens for {text!r}")
    return tokens


def table_inputs(context: Any) -> list[Any]:
    """The step's table: column ``input``, and optionally ``as`` (``text``, the default, or ``tokens``)."""
    expect(context.table is not None and "input" in context.table.headings,
           "this step needs a table with an 'input' column (and optionally 'as': text or tokens)")
    inputs: list[Any] = []
    for row in context.table:
        kind = row["as"] if "as" in context.table.headings else "text"
        expect(kind in ("text", "tokens"), f"'as' is '{kind}': say text or tokens")
        inputs.append(tokens_of(context, row["input"]) if kind == "tokens" else row["input"])
    return inputs


def model_embedding_size(context: Any) -> tuple[int | None, str]:
    """The model's embedding size, asked once per scenario."""
    state = state_of(context)
    remembered = state.part(EmbeddingsState)
    if remembered.model_embedding_size is None:
        remembered.model_embedding_size = read_model_embedding_size(state.client(), state.request.auth_headers())
    return remembered.model_embedding_size


def check_vectors(context: Any) -> list[list[float]]:
    vectors = state_of(context).results.embeddings
    expect(bool(vectors), "no embedding was returned (or none was requested yet)")
    return vectors


# ----------------------------------------------------------------------------------------------
# steps of the original suite
# ----------------------------------------------------------------------------------------------

def request_oai_embeddings(context: Any, inputs: Any) -> list[list[float]]:
    """Embeddings through the openai client, ``encoding_format="float"``."""
    reply = embed(context, EmbeddingRoute.parse("the openai client with encoding_format float"), inputs)
    return [reply.pooled(index) for index in sorted(reply.vectors)]


@step("embeddings are computed for", "embeddings are computed for:")
def step_embeddings_computed_for(context: Any) -> None:
    """Ask native ``/embedding`` for the text block's embedding; an error answer is kept for the checks after
    (``embeddings are generated`` fails on it, ``embeddings request with 500 api error`` expects it).

        When embeddings are computed for:
          \"\"\"
          What is the capital of Bulgaria ?
          \"\"\"
    """
    state = state_of(context)
    exchange = state.client().post("/embedding", {"content": context.text}, headers=request_headers(state.request))
    state.results.last = exchange
    state.results.embeddings = native_vectors(exchange) if exchange.status == 200 else []


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
    headers = request_headers(state_of(context).request)
    for prompt in queued_prompts(context):
        send_in_background(context, "/embedding", {"content": prompt}, headers, native_vectors)


@step("concurrent OAI embedding requests")
def step_concurrent_oai_embeddings(context: Any) -> None:
    """Send every queued prompt to ``/v1/embeddings`` at once (raw HTTP).

        Given concurrent OAI embedding requests
    """
    draft = state_of(context).request
    headers = raw_headers(draft)
    model = draft.model
    for prompt in queued_prompts(context):
        send_in_background(context, "/v1/embeddings", {"input": prompt, "model": model or "llama-bdd"}, headers,
                           lambda exchange: oai_vectors(exchange, model))


@step("all embeddings are generated")
def step_all_embeddings_generated(context: Any) -> None:
    """Every concurrent embedding request returned non-zero vectors (kept for the vector checks that follow).

        Then all embeddings are generated
    """
    results = gather_results(context)
    expect(len(results) > 0, "no concurrent embedding request was sent")
    for number, vectors in enumerate(results):
        expect(bool(vectors), f"request {number} returned no embedding")
        for index, vector in enumerate(vectors):
            assert_vector(vector, f"request {number}, embedding {index}")
    state_of(context).results.embeddings = [vector for vectors in results for vector in vectors]


# ----------------------------------------------------------------------------------------------
# requests through a named route
# ----------------------------------------------------------------------------------------------

@step('"{text}" is embedded through {route}')
def step_text_embedded_through(context: Any, text: str, route: str) -> None:
    """Embed one string (``input``/``content`` is the string itself); the answer must be 200.

    Routes: ``the openai client`` (it asks for base64 and decodes), ``the openai client with
    encoding_format float|base64``, ``POST /v1/embeddings [with encoding_format float|base64]`` (raw HTTP),
    ``POST /embedding``, ``POST /embeddings`` (native).

        When "What is the capital of Bulgaria ?" is embedded through the openai client with encoding_format float
        When "What is the capital of Bulgaria ?" is embedded through POST /embedding
    """
    embed(context, EmbeddingRoute.parse(route), text)


@step('the tokens of "{text}" are embedded through {route}')
def step_tokens_embedded_through(context: Any, text: str, route: str) -> None:
    """Tokenize the text (``/tokenize``, special tokens included), then embed that one token array.

        When the tokens of "What is the capital of Bulgaria ?" are embedded through POST /v1/embeddings
    """
    embed(context, EmbeddingRoute.parse(route), tokens_of(context, text))


@step("these inputs are embedded through {route}:")
def step_inputs_embedded_through(context: Any, route: str) -> None:
    """Embed the table's inputs in one request (``input`` is a list); rows ``as tokens`` are sent as token arrays.

        When these inputs are embedded through the openai client with encoding_format base64:
          | input                | as     |
          | I like the sun       | text   |
          | I like the sun       | tokens |
          | Paris is in France   | text   |
    """
    embed(context, EmbeddingRoute.parse(route), table_inputs(context))


@step('"{text}" is sent for embedding through {route}')
def step_text_sent_for_embedding(context: Any, text: str, route: str) -> None:
    """Send one string for embedding and keep whatever comes back, errors included (no status is expected).

    Check the answer with ``the response status is ...`` and, for the openai client, ``the openai client
    raised ...``.

        When "What is the capital of France ?" is sent for embedding through POST /v1/embeddings
        Then the response status is 400
    """
    exchange, outcome = send(context, EmbeddingRoute.parse(route), text)
    state_of(context).results.openai_error = (outcome if isinstance(outcome, openai.OpenAIError)
                                                            else None)


# ----------------------------------------------------------------------------------------------
# checks on the answer
# ----------------------------------------------------------------------------------------------

@step("one embedding is returned per input, in input order")
def step_one_per_input(context: Any) -> None:
    """The answer has exactly one pooled vector per input, with indexes 0..n-1 listed in that order.

        Then one embedding is returned per input, in input order
    """
    reply = last_reply(context)
    count = len(reply.inputs)
    expect_equal(reply.indexes, list(range(count)), f"indexes of the answer's items ({count} inputs)",
                 reply.exchange)
    for index in range(count):
        reply.pooled(index)


@step("there is one embedding per prompt token")
def step_one_per_token(context: Any) -> None:
    """Without pooling, the native answer has one vector per token of each input (counted with ``/tokenize``).

        Then there is one embedding per prompt token
    """
    reply = last_reply(context)
    for index, text in enumerate(reply.inputs):
        expected = len(text) if isinstance(text, list) else len(tokens_of(context, text))
        vectors = reply.vectors.get(index)
        expect(vectors is not None, f"the answer has no item with index {index}", reply.exchange)
        expect_equal(len(vectors), expected, f"vectors of input {index} ({text!r}), one per token", reply.exchange)


@step("every embedding has the model's embedding size")
def step_embedding_size(context: Any) -> None:
    """Every vector is as long as the model's embedding size (``meta.n_embd`` of ``/v1/models``).

        Then every embedding has the model's embedding size
    """
    vectors = check_vectors(context)
    size, source = model_embedding_size(context)
    if size is None:
        size = len(vectors[0])
    last = state_of(context).results.last
    for number, vector in enumerate(vectors):
        expect_equal(len(vector), size, f"size of embedding {number} (the model's embedding size, from {source})",
                     last)


@step("every embedding is non-zero")
def step_embeddings_non_zero(context: Any) -> None:
    """Every vector has a non-zero, finite value somewhere (and only finite values).

        Then every embedding is non-zero
    """
    last = state_of(context).results.last
    for number, vector in enumerate(check_vectors(context)):
        assert_vector(vector, f"embedding {number}", last)


@step("every embedding is L2-normalised")
def step_embeddings_normalised(context: Any) -> None:
    """Every vector has Euclidean norm 1 (within 0.001), as OpenAI-compatible embeddings are.

        Then every embedding is L2-normalised
    """
    last = state_of(context).results.last
    for number, vector in enumerate(check_vectors(context)):
        norm = l2_norm(vector)
        expect(abs(norm - 1.0) <= NORM_TOLERANCE,
               f"embedding {number} has L2 norm {norm:.6f}, expected 1 (within {NORM_TOLERANCE})", last)


@step("embeddings {first:d} and {second:d} are identical")
def step_embeddings_identical(context: Any, first: int, second: int) -> None:
    """The vectors of inputs i and j (by ``index``) are the same, component by component (within 1e-4).

        Then embeddings 0 and 1 are identical
    """
    expect_identical(last_reply(context), first, second)


@step("embeddings {first:d} and {second:d} are different")
def step_embeddings_different(context: Any, first: int, second: int) -> None:
    """The vectors of inputs i and j differ (some component by more than 1e-3).

        Then embeddings 0 and 2 are different
    """
    expect_different(last_reply(context), first, second)


@step("each embedding equals its input embedded alone")
def step_each_equals_alone(context: Any) -> None:
    """Embed every input of the last request again, on its own and through the same route: same vectors.

    Catches answers that mix up the inputs of a batch, or let one input change another's vector.

        Then each embedding equals its input embedded alone
    """
    reply = last_reply(context)
    mismatches = []
    for index, single in enumerate(reply.inputs):
        batched = reply.pooled(index)
        alone_reply = embed(context, reply.route, single, remember=False)
        alone = alone_reply.pooled(0)
        difference = largest_difference(batched, alone)
        if difference > IDENTICAL_COMPONENT:
            mismatches.append(f"  input {index} {single!r}: components differ by up to {difference:.6g}, "
                              f"cosine {cosine(batched, alone):.6f}")
    expect(not mismatches, "embeddings of the batch differ from the same inputs embedded alone:\n"
           + "\n".join(mismatches), reply.exchange)


@step("the embeddings usage counts the prompt tokens of every input")
def step_usage_counts_tokens(context: Any) -> None:
    """``usage.prompt_tokens`` and ``usage.total_tokens`` are the tokens of all inputs (``/tokenize`` counts).

        Then the embeddings usage counts the prompt tokens of every input
    """
    reply = last_reply(context)
    expect(reply.route.openai_compatible, f"{reply.route.phrase} answers carry no usage; use /v1/embeddings")
    expect(reply.usage is not None, "the embeddings answer has no usage", reply.exchange)
    expected = sum(len(item) if isinstance(item, list) else len(tokens_of(context, item)) for item in reply.inputs)
    expect_equal(reply.usage.get("prompt_tokens"), expected, "usage.prompt_tokens (tokens of every input)",
                 reply.exchange)
    expect_equal(reply.usage.get("total_tokens"), expected, "usage.total_tokens", reply.exchange)


@step("the embeddings response names the model {model}")
def step_response_names_model(context: Any, model: str) -> None:
    """The OpenAI answer's ``model`` is this name (the alias the server was given, when the request named none).

        Then the embeddings response names the model smollm2
    """
    reply = last_reply(context)
    expect(reply.route.openai_compatible, f"{reply.route.phrase} answers carry no model; use /v1/embeddings")
    expect_equal(reply.model, model, "model of the embeddings answer", reply.exchange)


@step('the response error message mentions "{text}"')
def step_error_message_mentions(context: Any, text: str) -> None:
    """The last answer is a JSON error whose ``error.message`` contains this text (case-insensitive).

        Then the response error message mentions "pooling"
    """
    exchange = last_exchange(context)
    message = error_message(exchange)
    expect(text.lower() in message.lower(), f"error.message should mention {text!r}: {message!r}", exchange)
