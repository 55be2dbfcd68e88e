"""Tokenization: ``/tokenize`` and ``/detokenize``."""

from __future__ import annotations

from typing import Any

from .core import expect, expect_equal, expect_status, state_of, step


@step("tokenizing", "tokenizing:")
def step_tokenizing(context: Any) -> None:
    """Tokenize the text block with ``/tokenize``.

        When tokenizing:
          \"\"\"
          What is the capital of France ?
          \"\"\"
    """
    state = state_of(context)
    exchange = expect_status(state.client().post("/tokenize", {"content": context.text}), 200)
    state.results.tokenized_text = context.text
    state.results.tokens = exchange.body["tokens"]


@step("tokens can be detokenize")
def step_tokens_detokenize(context: Any) -> None:
    """``/detokenize`` of the tokens gives the text back (surrounding whitespace aside).

        Then tokens can be detokenize
    """
    state = state_of(context)
    tokens = state.results.tokens
    expect(len(tokens) > 0, "tokenizing returned no tokens")
    exchange = expect_status(state.client().post("/detokenize", {"tokens": tokens}), 200)
    expect_equal(exchange.body["content"].strip(), state.results.tokenized_text.strip(),
                 "detokenized text", exchange)
