"""API phrases of llama.cpp's final behave suite (November 2024): tokenize with BOS and pieces, embeddings
errors and equality, reranking, the models list, slot files, LoRA switches, one metric, the last status.

Each step is one client call or one check of ``llama_bdd.client.legacy``; the old phrases are kept word
for word.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from llama_bdd.client import legacy
from llama_bdd.client import metrics as metrics_client
from llama_bdd.client.embeddings import assert_vector, cosine
from llama_bdd.client.openai_api import openai_client
from llama_bdd.client.tokenize import tokenize_with_pieces
from llama_bdd.harness.http import Exchange

from .core import expect, expect_equal, expect_status, state_of, step, suite_of
from .core.scenario import detokenize, gather_results, last_exchange

SAME_EMBEDDING_SIMILARITY = 1e-5  # how far from 1.0 the cosine similarity of "the same" embeddings may be


@dataclass
class LegacyApiState:
    """What these steps remember between steps of a scenario."""

    models: list[Any] = field(default_factory=list)  # the last ``models.list()``
    rerank_scores: tuple[dict[int, float], Exchange] | None = None


# ----------------------------------------------------------------------------------------------
# tokenize
# ----------------------------------------------------------------------------------------------

@step("BOS token is {bos:d}")
def step_bos_token(context: Any, bos: int) -> None:
    """The model's BOS token id, for ``tokens begin with BOS`` (without it: the model's own BOS token).

        Given BOS token is 1
    """
    state_of(context).part(legacy.TokenizeFacts).bos = bos


@step("adding special tokens")
def step_adding_special_tokens(context: Any) -> None:
    """``tokenizing:`` asks ``/tokenize`` to add the special tokens (``add_special: true``, BOS first).

        Given adding special tokens
    """
    state_of(context).part(legacy.TokenizeFacts).add_special = True


@step("tokenizing with pieces")
def step_tokenizing_with_pieces(context: Any) -> None:
    """Tokenize the text block with ``with_pieces`` (the original's spelling without the colon).

        When tokenizing with pieces
          \"\"\"
          What is the capital of Germany?
          \"\"\"
    """
    state = state_of(context)
    tokens, _ = tokenize_with_pieces(state.client(), context.text)
    state.results.tokenized_text = context.text
    state.results.tokens = [token["id"] for token in tokens]


@step("tokens are given with pieces")
def step_tokens_with_pieces(context: Any) -> None:
    """The last ``/tokenize`` answer gave every token as ``{"id", "piece"}``.

        Then tokens are given with pieces
    """
    answers = [e for e in state_of(context).exchanges() if e.url.split("?")[0].endswith("/tokenize")]
    expect(bool(answers), "nothing was tokenized: add 'When tokenizing with pieces:' first")
    legacy.expect_tokens_with_pieces(answers[-1])


@step("tokens can be detokenized")
def step_tokens_detokenized(context: Any) -> None:
    """``/detokenize`` of the tokens gives the tokenized text back (surrounding whitespace aside).

        Then tokens can be detokenized
    """
    results = state_of(context).results
    expect(len(results.tokens) > 0, "tokenizing returned no tokens")
    expect_equal(detokenize(context, results.tokens).strip(), (results.tokenized_text or "").strip(),
                 "detokenized text")


def _bos(context: Any) -> int:
    """``BOS token is N``, else the model's BOS token (see ``legacy.model_bos_token``)."""
    state = state_of(context)
    facts = state.part(legacy.TokenizeFacts)
    if facts.bos is None:
        facts.bos = legacy.model_bos_token(state.client(), state.request.auth_headers())
    return facts.bos


@step("tokens begin with BOS")
def step_tokens_begin_with_bos(context: Any) -> None:
    """The first token is the BOS token.

        Then tokens begin with BOS
    """
    tokens = state_of(context).results.tokens
    expect(bool(tokens) and tokens[0] == _bos(context), f"tokens should begin with BOS {_bos(context)}: {tokens}")


@step("tokens do not begin with BOS")
def step_tokens_not_begin_with_bos(context: Any) -> None:
    """The first token is not the BOS token.

        Then tokens do not begin with BOS
    """
    tokens = state_of(context).results.tokens
    expect(bool(tokens) and tokens[0] != _bos(context), f"tokens should not begin with BOS {_bos(context)}: {tokens}")


@step("first token is removed")
def step_first_token_removed(context: Any) -> None:
    """Drop the first token of the last tokenizing.

        Given first token is removed
    """
    results = state_of(context).results
    expect(bool(results.tokens), "no tokens to remove one from")
    results.tokens = results.tokens[1:]


# ----------------------------------------------------------------------------------------------
# embeddings
# ----------------------------------------------------------------------------------------------

@step("embeddings request with {api_error_code:d} api error")
def step_embeddings_api_error(context: Any, api_error_code: int) -> None:
    """The last request was answered with this error status.

        Then embeddings request with 500 api error
    """
    expect_status(last_exchange(context, "send an embeddings request first"), api_error_code)


@step("all embeddings are the same")
def step_all_embeddings_same(context: Any) -> None:
    """Every embedding (at least 2; concurrent requests gathered first) points the same way: cosine 1.

        Then all embeddings are the same
    """
    results = state_of(context).results
    if results.pending:
        results.embeddings = [vector for vectors in gather_results(context) for vector in vectors]
    vectors = results.embeddings
    expect(len(vectors) >= 2, f"comparing embeddings needs at least 2, got {len(vectors)}")
    for index, vector in enumerate(vectors):
        assert_vector(vector, f"embedding {index}")
        similarity = cosine(vectors[0], vector)
        expect(abs(similarity - 1.0) <= SAME_EMBEDDING_SIMILARITY,
               f"embedding {index} differs from embedding 0: cosine similarity {similarity:.10f}")


# ----------------------------------------------------------------------------------------------
# reranking
# ----------------------------------------------------------------------------------------------

@step("a rerank query", "a rerank query:")
def step_rerank_query(context: Any) -> None:
    """The query of the next reranking: the text block.

        Given a rerank query:
          \"\"\"
          Machine learning is
          \"\"\"
    """
    state_of(context).part(legacy.RerankDraft).query = context.text


@step("a rerank document", "a rerank document:")
def step_rerank_document(context: Any) -> None:
    """Add the text block to the documents of the next reranking.

        Given a rerank document:
          \"\"\"
          Machine learning is a field of study in artificial intelligence.
          \"\"\"
    """
    state_of(context).part(legacy.RerankDraft).documents.append(context.text)


@step("reranking request")
def step_reranking_request(context: Any) -> None:
    """Send the query and documents to ``/rerank``.

        When reranking request
    """
    state = state_of(context)
    state.results.last = state.client().post("/rerank", state.part(legacy.RerankDraft).payload(),
                                             headers=state.request.auth_headers())


@step("reranking results are returned")
def step_reranking_results(context: Any) -> None:
    """200, one result per document, each with its index and a relevance score.

        Then reranking results are returned
    """
    state = state_of(context)
    exchange = last_exchange(context, "add 'When reranking request' first")
    scores = legacy.rerank_scores(exchange, len(state.part(legacy.RerankDraft).documents))
    state.part(LegacyApiState).rerank_scores = (scores, exchange)


@step("reranking highest score is index {idx_high:d} and lowest score is index {idx_low:d}")
def step_reranking_extremes(context: Any, idx_high: int, idx_low: int) -> None:
    """The best and the worst document of the last reranking.

        Then reranking highest score is index 2 and lowest score is index 3
    """
    remembered = state_of(context).part(LegacyApiState).rerank_scores
    expect(remembered is not None, "no reranking results yet: add 'Then reranking results are returned' first")
    legacy.expect_rank_extremes(remembered[1], remembered[0], idx_high, idx_low)


# ----------------------------------------------------------------------------------------------
# models
# ----------------------------------------------------------------------------------------------

@step("available models")
def step_available_models(context: Any) -> None:
    """List the models through the openai client (``models.list()``, ``GET /v1/models``).

        Given available models
    """
    state = state_of(context)
    client = openai_client(state.client().base_url, state.request.user_api_key)
    state.part(LegacyApiState).models = list(client.models.list())


@step("{n_model:d} models are supported")
def step_models_supported(context: Any, n_model: int) -> None:
    """The last models list has N models.

        Then 1 models are supported
    """
    models = state_of(context).part(LegacyApiState).models
    expect_equal(len(models), n_model, f"number of models ({[m.id for m in models]})")


@step("model {i_model:d} is {param} {preposition} {param_value}")
def step_model_is(context: Any, i_model: int, param: str, preposition: str, param_value: str) -> None:
    """Model I of the list: ``identified by`` its id, or ``trained on N tokens context`` (``meta.n_ctx_train``).

        Then model 0 is identified by tinyllama-2
        Then model 0 is trained on 128 tokens context
    """
    models = state_of(context).part(LegacyApiState).models
    expect(0 <= i_model < len(models), f"no model {i_model}: the list has {len(models)} (add 'Given available models')")
    actual, expected = legacy.model_parameter(models[i_model], param, param_value)
    expect_equal(actual, expected, f"model {i_model} {param} {preposition}")


# ----------------------------------------------------------------------------------------------
# slots, LoRA adapters, metrics, status
# ----------------------------------------------------------------------------------------------

def _post(context: Any, path: str, body: Any) -> None:
    state = state_of(context)
    state.results.last = state.client().post(path, body, headers=state.request.auth_headers())


@step('the slot {slot_id:d} is saved with filename "{filename}"', fresh_server=True)
def step_slot_saved(context: Any, slot_id: int, filename: str) -> None:
    """``POST /slots/N?action=save`` with the file name (check it with ``the server responds with ...``).

        When the slot 1 is saved with filename "slot1.bin"
    """
    _post(context, *legacy.slot_action(slot_id, "save", filename))


@step('the slot {slot_id:d} is restored with filename "{filename}"', fresh_server=True)
def step_slot_restored(context: Any, slot_id: int, filename: str) -> None:
    """``POST /slots/N?action=restore`` with the file name.

        When the slot 0 is restored with filename "slot1.bin"
    """
    _post(context, *legacy.slot_action(slot_id, "restore", filename))


@step("the slot {slot_id:d} is erased", fresh_server=True)
def step_slot_erased(context: Any, slot_id: int) -> None:
    """``POST /slots/N?action=erase``.

        When the slot 1 is erased
    """
    _post(context, *legacy.slot_action(slot_id, "erase"))


@step("switch {on_or_off} lora adapter {lora_id:d}")
def step_switch_lora(context: Any, on_or_off: str, lora_id: int) -> None:
    """Set the adapter's scale to 1 (on) or 0 (off) with ``POST /lora-adapters``; 200 expected.

        Given switch on lora adapter 0
    """
    _post(context, "/lora-adapters", legacy.lora_switch(lora_id, on_or_off))
    expect_status(state_of(context).results.last, 200)


@step("metric {metric_name} is {metric_value:d}", fresh_server=True)
def step_metric_is(context: Any, metric_name: str, metric_value: int) -> None:
    """``/metrics`` has this value for the metric (a counter's ``_total`` sample counts as the metric).

        Then metric llamacpp:tokens_predicted is 8
    """
    state = state_of(context)
    snapshot = metrics_client.snapshot(state.client(), state.request.auth_headers())
    name = metric_name if metric_name in snapshot.samples or f"{metric_name}_total" not in snapshot.samples \
        else f"{metric_name}_total"
    expect_equal(snapshot.value(name, suite_of(context).capabilities), metric_value, f"metric {name}",
                 snapshot.exchange)


@step("the server responds with status code {status_code:d}")
def step_status_code(context: Any, status_code: int) -> None:
    """The last plain HTTP answer had this status.

        Then the server responds with status code 200
    """
    expect_status(last_exchange(context, "send a request first"), status_code)
