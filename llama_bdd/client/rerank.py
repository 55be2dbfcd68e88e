"""Reranking: ``/rerank`` and ``/v1/rerank`` (Jina format): ``results`` of ``index`` and ``relevance_score``."""

from __future__ import annotations

from dataclasses import dataclass

from llama_bdd.harness.http import Exchange

from .checks import expect, expect_equal


@dataclass
class RerankReply:
    documents: list[str]
    top_n: int
    exchange: Exchange


def expect_ranked(reply: RerankReply) -> None:
    """``results`` lists each document (``index``) once, at most ``top_n`` of them, by falling ``relevance_score``."""
    body = reply.exchange.body
    expect_equal(body.get("object"), "list", "object of the rerank answer", reply.exchange)
    results = body.get("results")
    expect(isinstance(results, list), "the rerank answer has no 'results' list", reply.exchange)
    expect_equal(len(results), min(reply.top_n, len(reply.documents)), "number of results (top_n or one per "
                 "document)", reply.exchange)
    indexes = [item.get("index") for item in results]
    expect(len(set(indexes)) == len(indexes) and all(i in range(len(reply.documents)) for i in indexes),
           f"result indexes should be distinct document numbers, got {indexes}", reply.exchange)
    scores = [item.get("relevance_score") for item in results]
    expect(all(isinstance(score, (int, float)) for score in scores), "every result needs a relevance_score",
           reply.exchange)
    expect(scores == sorted(scores, reverse=True), f"results should be sorted best first: {scores}", reply.exchange)
