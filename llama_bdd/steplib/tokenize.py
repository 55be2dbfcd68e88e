"""Tokenization: ``/tokenize`` and ``/detokenize``, and the token counts other steps compare against."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llama_bdd.client import tokenize as tokenize_client
from llama_bdd.client.legacy import TokenizeFacts
from llama_bdd.harness.http import Exchange

from .core import expect, expect_equal, expect_status, state_of, step
from .core.scenario import tokenize


@dataclass
class TokenizeState:
    """What the tokenize steps remember between steps of a scenario."""

    # the ``{"id", "piece"}`` tokens of the last tokenizing with pieces, and its exchange
    pieces: tuple[list[dict[str, Any]], Exchange] | None = None


@step("tokenizing", "tokenizing:")
def step_tokenizing(context: Any) -> None:
    """Tokenize the text block with ``/tokenize``.

        When tokenizing:
          \"\"\"
          What is the capital of France ?
          \"\"\"
    """
    state = state_of(context)
    body = {"content": context.text}
    if state.part(TokenizeFacts).add_special:  # 'Given adding special tokens' (the final-era phrase)
        body["add_special"] = True
    exchange = expect_status(state.client().post("/tokenize", body), 200)
    state.results.tokenized_text = context.text
    state.results.tokens = exchange.body["tokens"]


@step("tokenizing with pieces:")
def step_tokenizing_with_pieces(context: Any) -> None:
    """Tokenize the text block with ``with_pieces``: each token comes as ``{"id", "piece"}``.

        When tokenizing with pieces:
          \"\"\"
          Unicode 媽 and emoji 🤗
          \"\"\"
    """
    state = state_of(context)
    tokens, exchange = tokenize_client.tokenize_with_pieces(state.client(), context.text)
    state.results.tokenized_text = context.text
    state.results.tokens = [token["id"] for token in tokens]
    state.part(TokenizeState).pieces = (tokens, exchange)


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


@step("the pieces spell the text")
def step_pieces_spell_text(context: Any) -> None:
    """The pieces, joined (byte-array pieces decoded as UTF-8 together), give back the tokenized text.

    A piece that is not valid UTF-8 on its own (part of a multi-byte character) comes as a list of bytes.

        Then the pieces spell the text
    """
    state = state_of(context)
    entry = state.part(TokenizeState).pieces
    expect(entry is not None, "no tokenizing with pieces yet: add 'When tokenizing with pieces:' first")
    tokens, exchange = entry
    expect_equal(tokenize_client.spell_pieces(tokens, exchange), state.results.tokenized_text, "the pieces joined",
                 exchange)


@step("the pieces carry the same ids as plain tokenizing")
def step_pieces_same_ids(context: Any) -> None:
    """``with_pieces`` changes the shape of the answer, not the tokens: ids equal a plain ``/tokenize``.

        Then the pieces carry the same ids as plain tokenizing
    """
    state = state_of(context)
    pieces = state.part(TokenizeState).pieces
    expect(pieces is not None, "no tokenizing with pieces yet: add 'When tokenizing with pieces:' first")
    plain = tokenize(context, state.results.tokenized_text, add_special=False)
    expect_equal(state.results.tokens, plain, "token ids with pieces vs plain /tokenize", pieces[1])


@step("tokenizing with add_special adds at most the BOS token")
def step_add_special(context: Any) -> None:
    """``add_special`` adds the model's BOS token in front, if the model has one, and changes nothing else.

        Then tokenizing with add_special adds at most the BOS token
    """
    state = state_of(context)
    text = state.results.tokenized_text
    expect(text is not None, "nothing tokenized yet: add 'When tokenizing:' first")
    plain = tokenize(context, text, add_special=False)
    tokenize_client.expect_only_bos_added(plain, tokenize(context, text, add_special=True))
