"""Tokenization: ``/tokenize`` and ``/detokenize``, and texts of an exact token count.

``/tokenize`` takes ``content`` (a text, or a list mixing texts and token ids, tokenized the way a completion
prompt is), ``add_special`` (BOS where the model adds one) and ``with_pieces`` (each token as
``{"id", "piece"}``, a piece that is not valid UTF-8 alone as a list of bytes).
"""

from __future__ import annotations

from typing import Any

from llama_bdd.harness.http import Exchange, HttpClient

from .checks import expect, expect_status


def tokenize(http: HttpClient, content: Any, add_special: bool = True,
             headers: dict[str, str] | None = None) -> list[int]:
    """The server's tokens for ``content``, tokenized as a completion prompt is when ``add_special``."""
    exchange = expect_status(http.post("/tokenize", {"content": content, "add_special": add_special},
                                       headers=headers or {}), 200)
    tokens = exchange.body.get("tokens")
    expect(isinstance(tokens, list) and all(isinstance(token, int) for token in tokens),
           "/tokenize did not answer a list of token ids", exchange)
    return tokens


def detokenize(http: HttpClient, tokens: list[int], headers: dict[str, str] | None = None) -> str:
    exchange = expect_status(http.post("/detokenize", {"tokens": tokens}, headers=headers or {}), 200)
    content = exchange.body.get("content")
    expect(isinstance(content, str), "/detokenize did not answer a content string", exchange)
    return content


def text_of_token_count(http: HttpClient, n_tokens: int, filler: str,
                        headers: dict[str, str] | None = None) -> str:
    """A text that, as a completion prompt, is exactly ``n_tokens`` tokens (BOS included where the model adds one).

    ``filler`` is repeated and cut at a token boundary; the result is checked by tokenizing it again.
    """
    def count(text: str, add_special: bool) -> list[int]:
        return tokenize(http, text, add_special=add_special, headers=headers)

    n_special = len(count(filler, True)) - len(count(filler, False))
    wanted = n_tokens - n_special
    text = filler
    while len(count(text, False)) < wanted + 8:
        text += " " + filler
    tokens = count(text, False)
    for cut in (wanted, wanted - 1, wanted + 1):  # retokenizing a cut text may merge across the cut
        candidate = detokenize(http, tokens[:cut], headers=headers)
        if len(count(candidate, True)) == n_tokens:
            return candidate
    raise AssertionError(f"could not build a text of exactly {n_tokens} tokens from {filler!r}")


def tokenize_with_pieces(http: HttpClient, text: str) -> tuple[list[dict[str, Any]], Exchange]:
    """``/tokenize`` with ``with_pieces``: each token must come as ``{"id": int, "piece": ...}``."""
    exchange = expect_status(http.post("/tokenize", {"content": text, "with_pieces": True}), 200)
    tokens = exchange.body.get("tokens")
    expect(isinstance(tokens, list) and len(tokens) > 0, "/tokenize with_pieces answered no tokens", exchange)
    for token in tokens:
        expect(isinstance(token, dict) and isinstance(token.get("id"), int) and "piece" in token,
               f"a with_pieces token must be {{'id': int, 'piece': ...}}, got {token!r}", exchange)
    return tokens, exchange


def spell_pieces(tokens: list[dict[str, Any]], exchange: Exchange) -> str:
    """The pieces joined, byte-array pieces decoded as UTF-8 together with their neighbours."""
    raw = b""
    for token in tokens:
        piece = token["piece"]
        if isinstance(piece, list):
            expect(all(isinstance(b, int) and 0 <= b < 256 for b in piece), f"bad byte piece {piece!r}", exchange)
            raw += bytes(piece)
        else:
            expect(isinstance(piece, str) and piece != "", f"empty or non-string piece {piece!r}", exchange)
            raw += piece.encode("utf-8")
    return raw.decode("utf-8", errors="replace")


def expect_only_bos_added(plain: list[int], special: list[int]) -> None:
    """``add_special`` only prepends BOS (if the model has one) and changes nothing else."""
    expect(special[len(special) - len(plain):] == plain and len(special) - len(plain) in (0, 1),
           f"add_special should only prepend BOS: plain {plain}, with add_special {special}")


def common_prefix_length(first: list[int], second: list[int]) -> int:
    common = 0
    while common < min(len(first), len(second)) and first[common] == second[common]:
        common += 1
    return common


