"""Reranking: ``/rerank`` and ``/v1/rerank`` (Jina format) with a reranking model.

Reranking needs a model trained for it (e.g. bge-reranker-v2-m3); the default model is a chat model. Name
one with ``LLAMA_BDD_RERANK_MODEL`` (a path, or a file in ``LLAMA_BDD_MODELS_DIR``); without it, scenarios
that need one are skipped, saying so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llama_bdd.client.request import CORS_TEST_ORIGIN
from llama_bdd.client.rerank import RerankReply, expect_ranked

from .core import expect, expect_equal, expect_status, state_of, step
from .core.scenario import serve_model_from_env

RERANK_MODEL_ENV = "LLAMA_BDD_RERANK_MODEL"


@dataclass
class RerankState:
    """What the rerank steps remember between steps of a scenario."""

    reply: RerankReply | None = None  # the last reranking, for the checks on its answer


def last_rerank(context: Any) -> RerankReply:
    reply = state_of(context).part(RerankState).reply
    expect(isinstance(reply, RerankReply), "nothing was reranked: add 'When the query ... is reranked ...' first")
    return reply


@step("a reranking model")
def step_reranking_model(context: Any) -> None:
    """Serve the reranking model named by ``LLAMA_BDD_RERANK_MODEL``, with ``--rerank``; skip the scenario,
    saying why, when none is named.

        Given a reranking model
    """
    if not serve_model_from_env(context, RERANK_MODEL_ENV,
                                f"no reranking model: set {RERANK_MODEL_ENV} to a reranker GGUF (a path, or a file "
                                f"in LLAMA_BDD_MODELS_DIR), e.g. bge-reranker-v2-m3; the default model is a chat "
                                f"model and cannot rerank"):
        return
    state = state_of(context)
    state.config.options["--rerank"] = None


@step('the query "{query}" is reranked against these documents through {path}:')
def step_rerank(context: Any, query: str, path: str) -> None:
    """Rank the table's documents (column ``document``) for the query; request fields (``top_n``) are sent too.

        When the query "What is a panda?" is reranked against these documents through /v1/rerank:
          | document                                          |
          | hi                                                |
          | The giant panda is a bear species endemic to China. |
    """
    expect(context.table is not None and "document" in context.table.headings,
           "this step needs a table with a 'document' column")
    state = state_of(context)
    documents = [row["document"] for row in context.table]
    body = {"query": query, "documents": documents, **state.request.fields}
    if state.request.model is not None:
        body["model"] = state.request.model
    exchange = state.client().post(path, body, headers={"Origin": CORS_TEST_ORIGIN, **state.request.auth_headers()})
    state.results.last = exchange
    expect_status(exchange, 200)
    top_n = int(state.request.fields.get("top_n", len(documents)))
    state.part(RerankState).reply = RerankReply(documents, top_n, exchange)


@step("one relevance score is returned per document, best first")
def step_scores_per_document(context: Any) -> None:
    """``results`` lists each document (``index``) once, at most ``top_n`` of them, by falling ``relevance_score``.

        Then one relevance score is returned per document, best first
    """
    expect_ranked(last_rerank(context))


@step("the most relevant document is document {index:d}")
def step_most_relevant(context: Any, index: int) -> None:
    """The first result is the document in this table row (0-based).

        Then the most relevant document is document 1
    """
    reply = last_rerank(context)
    results = reply.exchange.body.get("results") or []
    expect(bool(results), "the rerank answer has no results", reply.exchange)
    expect_equal(results[0].get("index"), index,
                 f"index of the most relevant document ({reply.documents[index]!r} expected)", reply.exchange)


@step("the rerank usage counts the prompt tokens")
def step_rerank_usage(context: Any) -> None:
    """``usage.prompt_tokens`` is positive and equals ``usage.total_tokens``.

        Then the rerank usage counts the prompt tokens
    """
    reply = last_rerank(context)
    usage = reply.exchange.body.get("usage") or {}
    prompt_tokens = usage.get("prompt_tokens")
    expect(isinstance(prompt_tokens, int) and prompt_tokens > 0, f"usage.prompt_tokens should be positive: {usage}",
           reply.exchange)
    expect_equal(usage.get("total_tokens"), prompt_tokens, "usage.total_tokens", reply.exchange)
