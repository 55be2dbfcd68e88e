"""Tokenization: ``/tokenize`` and ``/detokenize``, and the token counts other steps compare against."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llama_bdd.harness.http import Exchange

from .core import expect, expect_equal, expect_status, state_of, step


@dataclass
class TokenizeState:
    """What the tokenize steps remember between steps of a scenario."""

    # the ``{"id", "piece"}`` tokens of the last tokenizing with pieces, and its exchange
    pieces: tuple[list[dict[str, Any]], Exchange] | None = None


def tokenize(context: Any, content: Any, add_special: bool = True) -> list[int]:
    """The server's tokens for ``content`` (a text, or a list mixing texts and token ids), tokenized as a
    completion prompt is when ``add_special`` (BOS if the model has one); sent with the scenario's API key."""
    state = state_of(context)
    exchange = expect_status(state.client().post("/tokenize", {"content": content, "add_special": add_special},
                                                 headers=state.request.auth_headers()), 200)
    tokens = exchange.body.get("tokens")
    expect(isinstance(tokens, list) and all(isinstance(token, int) for token in tokens),
           "/tokenize did not answer a list of token ids", exchange)
    return tokens


def detokenize(context: Any, tokens: list[int]) -> str:
    exchange = expect_status(state_of(context).client().post("/detokenize", {"tokens": tokens}), 200)
    content = exchange.body.get("content")
    expect(isinstance(content, str), "/detokenize did not answer a content string", exchange)
    return content


def text_of_token_count(context: Any, n_tokens: int, filler: str) -> str:
    """A text that, as a completion prompt, is exactly ``n_tokens`` tokens (BOS included where the model adds one).

    ``filler`` is repeated and cut at a token boundary; the result is checked by tokenizing it again.
    """
    n_special = len(tokenize(context, filler, add_special=True)) - len(tokenize(context, filler, add_special=False))
    wanted = n_tokens - n_special
    text = filler
    while len(tokenize(context, text, add_special=False)) < wanted + 8:
        text += " " + filler
    tokens = tokenize(context, text, add_special=False)
    for cut in (wanted, wanted - 1, wanted + 1):  # retokenizing a cut text may merge across the cut
        candidate = detokenize(context, tokens[:cut])
        if len(tokenize(context, candidate, add_special=True)) == n_tokens:
            return candidate
    raise AssertionError(f"could not build a text of exactly {n_tokens} tokens from {filler!r}")


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


@step("tokenizing with pieces:")
def step_tokenizing_with_pieces(context: Any) -> None:
    """Tokenize the text block with ``with_pieces``: each token comes as ``{"id", "piece"}``.

        When tokenizing with pieces:
          \"\"\"
          Unicode 媽 and emoji 🤗
          \"\"\"
    """
    state = state_of(context)
    exchange = expect_status(state.client().post("/tokenize", {"content": context.text, "with_pieces": True}), 200)
    tokens = exchange.body.get("tokens")
    expect(isinstance(tokens, list) and len(tokens) > 0, "/tokenize with_pieces answered no tokens", exchange)
    for token in tokens:
        expect(isinstance(token, dict) and isinstance(token.get("id"), int) and "piece" in token,
               f"a with_pieces token must be {{'id': int, 'piece': ...}}, got {token!r}", exchange)
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
    raw = b""
    for token in tokens:
        piece = token["piece"]
        if isinstance(piece, list):
            expect(all(isinstance(b, int) and 0 <= b < 256 for b in piece), f"bad byte piece {piece!r}", exchange)
            raw += bytes(piece)
        else:
            expect(isinstance(piece, str) and piece != "", f"empty or non-string piece {piece!r}", exchange)
            raw += piece.encode("utf-8")
    expect_equal(raw.decode("utf-8", errors="replace"), state.results.tokenized_text, "the pieces joined", exchange)


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
    special = tokenize(context, text, add_special=True)
    expect(special[len(special) - len(plain):] == plain and len(special) - len(plain) in (0, 1),
           f"add_special should only prepend BOS: plain {plain}, with add_special {special}")
