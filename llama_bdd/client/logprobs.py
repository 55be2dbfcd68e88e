"""Token probabilities: ``logprobs``/``top_logprobs`` on the OpenAI routes, ``n_probs`` and
``post_sampling_probs`` on ``/completion``.

Chat answers carry ``choices[0].logprobs.content``: one entry per generated token with ``id``, ``token``,
``bytes``, ``logprob`` and ``top_logprobs`` (``top_logprobs`` of the request, 20 when it names none).
``/v1/completions`` answers ``logprobs`` in the same ``content`` shape (not OpenAI's legacy ``tokens`` /
``token_logprobs`` lists), its ``logprobs`` number playing ``top_logprobs``. Streamed, each chunk carries the
entries of its own tokens. ``post_sampling_probs`` turns ``logprob``/``top_logprobs`` into ``prob``/``top_probs``
measured after the sampler chain (so at temperature 0 the one kept token has probability 1).
"""

from __future__ import annotations

from typing import Any

from .answers import Completion, OaiCompletion
from .checks import expect, expect_equal


def logprob_entries(result: OaiCompletion) -> list[dict[str, Any]]:
    """The ``logprobs.content`` entries of an OpenAI answer, from every chunk when streamed; [] when none."""
    choices = [chunk["choices"][0] for chunk in result.chunks if chunk.get("choices")] if result.chunks is not None \
        else (result.raw or {}).get("choices", [])
    entries: list[dict[str, Any]] = []
    for choice in choices:
        entries += ((choice.get("logprobs") or {}).get("content")) or []
    return entries


def expect_ranked(entry: dict[str, Any], alternatives: str, value: str, at: str, n_top: int, greedy: bool,
                  result: Completion) -> None:
    """One token's entry: its own value, N alternatives, sorted most likely first, values in range."""
    for key in ("id", "token", value, alternatives):
        expect(key in entry, f"{at} has no {key}: {entry}", result.exchange)
    top = entry[alternatives]
    expect_equal(len(top), n_top, f"number of {alternatives} of {at}", result.exchange)
    values = [item[value] for item in top]
    for number in (entry[value], *values):
        if value == "logprob":
            expect(isinstance(number, (int, float)) and number <= 0, f"{at}: a logprob above 0: {number}",
                   result.exchange)
        else:
            expect(isinstance(number, (int, float)) and 0 <= number <= 1, f"{at}: a probability outside [0, 1]: "
                                                                            f"{number}", result.exchange)
    expect(values == sorted(values, reverse=True), f"{at}: {alternatives} are not sorted: {values}", result.exchange)
    if value == "prob":
        expect(sum(values) <= 1.0001, f"{at}: the probabilities sum to {sum(values)} > 1", result.exchange)
    ids = [item["id"] for item in top]
    if entry["id"] in ids:
        expect(abs(top[ids.index(entry["id"])][value] - entry[value]) < 1e-4,
               f"{at}: the chosen token's {value} differs from its {alternatives} entry", result.exchange)
    if greedy:
        expect(bool(top) and top[0]["id"] == entry["id"],
               f"{at}: at temperature 0 the chosen token {entry['token']!r} must be the most likely one "
               f"({top[0]['token'] if top else None!r})", result.exchange)


def expect_oai_logprobs(result: OaiCompletion, n_top: int, greedy: bool) -> None:
    """One entry per generated token (``usage.completion_tokens``), each with ``n_top`` sorted alternatives,
    logprobs <= 0, the chosen token's logprob present; the entries' tokens spell the text."""
    entries = logprob_entries(result)
    expect(bool(entries), "the answer carries no logprobs", result.exchange)
    if result.usage is not None:
        expect_equal(len(entries), result.usage["completion_tokens"], "logprob entries (one per generated token)",
                     result.exchange)
    for position, entry in enumerate(entries):
        expect_ranked(entry, "top_logprobs", "logprob", f"logprobs.content[{position}]", n_top, greedy, result)
    spelled = "".join(entry["token"] for entry in entries)
    expect(spelled.startswith(result.content) or result.content.startswith(spelled.strip()),
           f"the tokens spell {spelled!r}, the text is {result.content!r}", result.exchange)


def expect_no_logprobs(result: OaiCompletion) -> None:
    expect(not logprob_entries(result), "the answer carries logprobs it was not asked for", result.exchange)


def expect_post_sampling_probs(result: Completion, n_probs: int, greedy: bool) -> None:
    """``/completion`` with ``post_sampling_probs``: one entry per predicted token with ``prob`` and at most
    ``n_probs`` ``top_probs`` (those the samplers kept), in [0, 1], sorted, summing to at most 1."""
    body = result.raw if isinstance(result.raw, dict) else result.exchange.body
    entries = body.get("completion_probabilities")
    expect(isinstance(entries, list) and entries, "the answer has no completion_probabilities", result.exchange)
    expect_equal(len(entries), result.predicted_n, "completion_probabilities entries (one per token)",
                 result.exchange)
    for position, entry in enumerate(entries):
        expect("logprob" not in entry, f"completion_probabilities[{position}] has a logprob: post-sampling "
                                       f"probabilities are probs", result.exchange)
        n_top = min(n_probs, len(entry.get("top_probs", [])))
        expect(1 <= n_top <= n_probs, f"completion_probabilities[{position}]: {len(entry.get('top_probs', []))} "
                                      f"top_probs, expected 1 to {n_probs}", result.exchange)
        expect_ranked(entry, "top_probs", "prob", f"completion_probabilities[{position}]", n_top, greedy, result)
