"""What the final behave suite of llama.cpp (November 2024) read from the server's answers.

Its checks looked at fields every answer shape carries in some form: whether the generation was truncated
and how many prompt tokens were processed (native ``truncated``/``timings.prompt_n``, OpenAI
``finish_reason``/``usage.prompt_tokens``), whether concurrent generations agree, the token probabilities,
the models list, rerank scores, tokens with pieces. Plain functions over exchanges and answers, so they can
be used from a script; the request drafts of that suite's reranking and tokenizing live here too.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from llama_bdd.harness.http import Exchange, HttpClient

from . import tokenize as tokenize_client
from .answers import Completion
from .checks import expect, expect_equal, expect_status


# ----------------------------------------------------------------------------------------------
# one generation: truncated, prompt tokens processed
# ----------------------------------------------------------------------------------------------

def stream_events(exchange: Exchange) -> list[dict[str, Any]] | None:
    """A stream's JSON events: its ``data:`` events, or the chunks the openai client parsed (recorded one JSON
    per line); None for a plain answer."""
    if exchange.events is not None:
        return [event for event in exchange.data_events() if isinstance(event, dict)]
    lines = [line for line in exchange.response_text.splitlines() if line.strip()]
    if len(lines) < 2 or not (exchange.header("Content-Type") or "").startswith("text/event-stream"):
        return None
    try:
        return [event for event in (json.loads(line) for line in lines) if isinstance(event, dict)]
    except ValueError:
        return None


def final_answer(exchange: Exchange) -> dict[str, Any]:
    """The answer's closing object: the JSON body, or the last JSON event of a stream that has the fields."""
    events = stream_events(exchange)
    if events is None:
        body = exchange.body
        expect(isinstance(body, dict), "the answer is not one JSON object", exchange)
        return body
    expect(bool(events), "the stream carried no JSON event", exchange)
    closing = [e for e in events if "timings" in e or "usage" in e or "truncated" in e]
    return {**events[-1], **(closing[-1] if closing else {})}


def was_truncated(exchange: Exchange) -> bool:
    """Native: ``truncated`` (the prompt did not fit the context); OpenAI: the choice did not finish with stop."""
    answer = final_answer(exchange)
    if "choices" in answer:
        reasons = [choice.get("finish_reason") for choice in answer.get("choices") or [] if choice.get("finish_reason")]
        if not reasons:  # in a stream the reason comes in the chunk before the usage chunk
            reasons = [c.get("finish_reason") for e in stream_events(exchange) or []
                       for c in e.get("choices") or [] if c.get("finish_reason")]
        expect(bool(reasons), "the OpenAI answer has no finish_reason", exchange)
        return reasons[-1] != "stop"
    expect("truncated" in answer, "the native answer has no 'truncated' field", exchange)
    return bool(answer["truncated"])


def prompt_tokens_processed(exchange: Exchange) -> int:
    """Native ``timings.prompt_n``; OpenAI ``usage.prompt_tokens``."""
    answer = final_answer(exchange)
    if "usage" in answer and isinstance(answer["usage"], dict):
        return answer["usage"]["prompt_tokens"]
    timings = answer.get("timings")
    expect(isinstance(timings, dict) and "prompt_n" in timings, "the answer has no timings.prompt_n", exchange)
    return timings["prompt_n"]


# ----------------------------------------------------------------------------------------------
# several generations
# ----------------------------------------------------------------------------------------------

def expect_predictions_agree(results: list[Completion], equal: bool) -> None:
    """At least two generations; their contents all equal (``equal``) or pairwise different."""
    expect(len(results) >= 2, f"comparing predictions needs at least 2 results, got {len(results)}")
    for i, first in enumerate(results):
        for j in range(i + 1, len(results)):
            same = first.content == results[j].content
            expect(same == equal, f"prediction {i} and {j} should be {'equal' if equal else 'different'}:\n"
                                  f"  {i}: {first.content!r}\n  {j}: {results[j].content!r}", results[j].exchange)


def token_probabilities(result: Completion) -> list[dict[str, Any]]:
    probabilities = (result.raw or {}).get("completion_probabilities") if isinstance(result.raw, dict) else None
    expect(isinstance(probabilities, list) and probabilities != [],
           "the answer has no completion_probabilities (send n_probs)", result.exchange)
    return probabilities


def expect_same_token_probabilities(results: list[Completion]) -> None:
    """Over their common length, every generation chose the same tokens with the same top probabilities."""
    expect(len(results) >= 2, f"comparing token probabilities needs at least 2 results, got {len(results)}")
    reference = token_probabilities(results[0])
    for number, other in enumerate(results[1:], start=1):
        probabilities = token_probabilities(other)
        for position, (mine, theirs) in enumerate(zip(reference, probabilities)):
            expect_equal(_top(theirs), _top(mine), f"token probabilities at position {position} of result "
                         f"{number} (vs result 0)", other.exchange)


def _top(entry: dict[str, Any]) -> list[tuple[Any, float]]:
    """(token, probability) of one position's alternatives, in both the old and today's shapes."""
    alternatives = entry.get("top_logprobs") or entry.get("top_probs") or entry.get("probs") or []
    pairs = []
    for item in alternatives:
        value = item.get("logprob", item.get("prob"))
        pairs.append((item.get("id", item.get("token", item.get("tok_str"))),
                      round(value, 4) if isinstance(value, (int, float)) else value))
    return [(entry.get("id", entry.get("token", entry.get("content"))), None), *pairs]


# ----------------------------------------------------------------------------------------------
# models, tokens with pieces
# ----------------------------------------------------------------------------------------------

def model_parameter(model: Any, param: str, param_value: str) -> tuple[str, str]:
    """(actual, expected) for ``model 0 is identified by X`` / ``model 0 is trained on N tokens context``."""
    expected = param_value.split(" ", 1)[0]
    if param == "identified":
        return str(model.id), expected
    if param == "trained":
        meta = getattr(model, "meta", None) or (model.model_extra or {}).get("meta") or {}
        expect("n_ctx_train" in meta, f"model {model.id} has no meta.n_ctx_train: {meta}")
        return str(meta["n_ctx_train"]), expected
    raise AssertionError(f"model parameter '{param}' is not known: say 'identified by' or 'trained on'")


def expect_tokens_with_pieces(exchange: Exchange) -> None:
    """``/tokenize`` with pieces: every token an ``{"id": int, "piece": str or byte list}`` object."""
    tokens = exchange.body.get("tokens") if isinstance(exchange.body, dict) else None
    expect(isinstance(tokens, list) and tokens != [], "the /tokenize answer has no tokens", exchange)
    for token in tokens:
        expect(isinstance(token, dict) and isinstance(token.get("id"), int)
               and isinstance(token.get("piece"), (str, list)), f"token without id and piece: {token!r}", exchange)


def model_bos_token(http: HttpClient, headers: dict[str, str] | None = None) -> int:
    """The model's BOS token id: the token ``/tokenize`` puts before an empty text with special tokens, else
    (a model that adds no BOS, e.g. SmolLM2) ``/props`` ``bos_token`` tokenized as one special token."""
    added = tokenize_client.tokenize(http, "", add_special=True, headers=headers)
    if added:
        return added[0]
    exchange = expect_status(http.get("/props", headers=headers or {}), 200)
    text = exchange.body.get("bos_token") if isinstance(exchange.body, dict) else None
    expect(isinstance(text, str) and text != "", "the model adds no BOS token and /props names no bos_token", exchange)
    tokens = tokenize_client.tokenize(http, text, add_special=False, headers=headers)
    expect(len(tokens) == 1, f"/props bos_token {text!r} is not one token: {tokens}", exchange)
    return tokens[0]


@dataclass
class TokenizeFacts:
    """What the old tokenize steps knew: the model's BOS token id (``BOS token is N``), and whether
    ``/tokenize`` adds special tokens (``adding special tokens``: ``add_special``)."""

    bos: int | None = None
    add_special: bool = False


# ----------------------------------------------------------------------------------------------
# reranking (``/rerank``, Jina format)
# ----------------------------------------------------------------------------------------------

@dataclass
class RerankDraft:
    query: str | None = None
    documents: list[str] = field(default_factory=list)

    def payload(self) -> dict[str, Any]:
        expect(self.query is not None and self.documents != [],
               "a reranking needs 'a rerank query:' and at least one 'a rerank document:'")
        return {"query": self.query, "documents": self.documents}


def rerank_scores(exchange: Exchange, n_documents: int) -> dict[int, float]:
    """``results``: one entry per document, each with its ``index`` and a finite ``relevance_score``."""
    expect_status(exchange, 200)
    results = exchange.body.get("results") if isinstance(exchange.body, dict) else None
    expect(isinstance(results, list), "the rerank answer has no results list", exchange)
    expect_equal(len(results), n_documents, "number of rerank results", exchange)
    scores = {}
    for item in results:
        score = item.get("relevance_score")
        expect(isinstance(item.get("index"), int) and isinstance(score, (int, float)) and math.isfinite(score),
               f"rerank result without index and relevance_score: {item!r}", exchange)
        scores[item["index"]] = score
    expect_equal(sorted(scores), list(range(n_documents)), "document indexes of the results", exchange)
    return scores


def expect_rank_extremes(exchange: Exchange, scores: dict[int, float], idx_high: int, idx_low: int) -> None:
    best, worst = max(scores, key=scores.get), min(scores, key=scores.get)
    expect((best, worst) == (idx_high, idx_low), f"highest score should be document {idx_high} and lowest "
           f"{idx_low}; got highest {best}, lowest {worst} (scores {scores})", exchange)


# ----------------------------------------------------------------------------------------------
# slots files and LoRA adapters
# ----------------------------------------------------------------------------------------------

def slot_action(slot_id: int, action: str, filename: str | None = None) -> tuple[str, dict[str, Any] | None]:
    """Path and body of ``POST /slots/{id}?action=save|restore|erase``."""
    return f"/slots/{slot_id}?action={action}", ({"filename": filename} if filename is not None else None)


def lora_switch(lora_id: int, on_or_off: str) -> list[dict[str, Any]]:
    """The ``POST /lora-adapters`` body: the adapter's scale 1 (on) or 0 (off)."""
    expect(on_or_off in ("on", "off"), f"switch '{on_or_off}': say on or off")
    return [{"id": lora_id, "scale": 1.0 if on_or_off == "on" else 0.0}]
