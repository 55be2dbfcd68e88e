"""Native ``/completion`` (and ``/completions``): request bodies, answers plain and streamed, their checks.

A native answer carries ``content``, ``tokens_predicted``, ``stop_type`` (``limit``, ``eos``, ``word``,
``none``), ``stopping_word``, ``truncated`` and ``timings`` (``prompt_n`` tokens processed, ``cache_n`` taken
from the KV cache, ``predicted_n`` generated). Streamed, it is a series of ``data:`` events with
``stop: false`` and a piece of ``content`` each, the last one with ``stop: true`` and the same fields as the
plain answer (its own ``content`` empty); no ``[DONE]`` follows.
"""

from __future__ import annotations

import json
import re
from typing import Any

from llama_bdd.harness.http import Exchange, HttpClient

from .answers import Completion
from .checks import expect, expect_equal, expect_status
from .request import CORS_TEST_ORIGIN, RequestDraft
from .prompts import seed_of
from .tokenize import detokenize, tokenize

JSON_PROMPT_STRING_KEY = "prompt_string"


def completion_payload(draft: RequestDraft, prompt: Any) -> dict[str, Any]:
    """The ``/completion`` body the original suite sent, plus streaming and any fields the scenario set."""
    payload = {"prompt": prompt, "n_predict": draft.n_predict if draft.n_predict is not None else -1,
               "seed": seed_of(prompt, draft.effective_seed)}  # a prompt queued with its own seed keeps it
    if draft.streaming:
        payload["stream"] = True
    return {**payload, **draft.fields}


def completion_headers(draft: RequestDraft) -> dict[str, str]:
    return {"Origin": CORS_TEST_ORIGIN, **draft.auth_headers()}


def native_completion(exchange: Exchange) -> Completion:
    """A successful native completion (200, CORS echo of the origin), plain or streamed."""
    expect_status(exchange, 200)
    expect_equal(exchange.header("Access-Control-Allow-Origin"), CORS_TEST_ORIGIN,
                 "Access-Control-Allow-Origin of the completion response", exchange)
    if exchange.events is not None:
        return native_stream_result(exchange)
    body = exchange.body
    expect(isinstance(body, dict) and "content" in body and "timings" in body,
           "a native completion answer must be one JSON object with content and timings", exchange)
    return Completion(content=body["content"], predicted_n=body["timings"]["predicted_n"], exchange=exchange,
                      finish_reason=body.get("stop_type"), raw=body)


def native_stream_result(exchange: Exchange) -> Completion:
    """A streamed native completion: every event ``stop: false`` but the last, which has the timings.

    The result's ``raw`` is that last event, so the checks on plain answers apply to it as well.
    """
    content_type = exchange.header("Content-Type") or ""
    expect(content_type.startswith("text/event-stream"),
           f"a streamed completion must be text/event-stream, is {content_type!r}", exchange)
    events = exchange.data_events()
    expect(len(events) > 0, "the stream carried no data event", exchange)
    for number, event in enumerate(events[:-1], start=1):
        expect(event.get("stop") is False, f"event {number} of {len(events)} must have stop: false", exchange)
    final = events[-1]
    expect(final.get("stop") is True, "the last event of the stream must have stop: true", exchange)
    expect(isinstance(final.get("timings"), dict), "the last event of the stream must carry timings", exchange)
    content = "".join(event.get("content", "") for event in events)
    return Completion(content=content, predicted_n=final["timings"]["predicted_n"], exchange=exchange,
                      finish_reason=final.get("stop_type"), raw=final)


def expect_native_stream_end(exchange: Exchange) -> None:
    """A native stream ends with its stop event (``stop: true``, ``timings``, ``stop_type``), not ``[DONE]``;
    the events before it carry as many tokens as ``timings.predicted_n``."""
    events = exchange.events or []
    expect(bool(events) and events[-1].data != "[DONE]", "a native stream ends with its stop event, not [DONE]",
           exchange)
    data = exchange.data_events()
    final = data[-1]
    expect(final.get("stop") is True, "the last event must have stop: true", exchange)
    expect(isinstance(final.get("timings"), dict), "the last event must carry timings", exchange)
    expect(final.get("stop_type") in ("limit", "eos", "word"), f"stop_type of the last event: {final.get('stop_type')}",
           exchange)
    streamed_tokens = sum(len(event.get("tokens", [])) for event in data[:-1])
    expect_equal(streamed_tokens, final["timings"]["predicted_n"],
                 "tokens streamed before the stop event (timings.predicted_n)", exchange)
    expect_equal(final.get("tokens_predicted"), final["timings"]["predicted_n"], "tokens_predicted of the stop event",
                 exchange)


def batch_completions(exchange: Exchange, n_prompts: int) -> list[Completion]:
    """The answer to one ``/completion`` whose ``prompt`` was a list: one completion per prompt, in order."""
    expect_status(exchange, 200)
    answers = exchange.body
    expect(isinstance(answers, list), "a list of prompts must be answered with a list of completions", exchange)
    expect_equal(len(answers), n_prompts, "completions for a list of prompts", exchange)
    expect_equal([answer.get("index") for answer in answers], list(range(n_prompts)),
                 "index of each completion (in prompt order)", exchange)
    return [Completion(content=answer["content"], predicted_n=answer["timings"]["predicted_n"], exchange=exchange,
                       finish_reason=answer.get("stop_type"), raw=answer) for answer in answers]


def native_body(completion: Completion) -> dict[str, Any]:
    """The JSON of a native answer (the last event of a stream); OpenAI-compatible answers are refused."""
    expect(isinstance(completion.raw, dict) and "tokens_predicted" in completion.raw
           and "timings" in completion.raw,
           "this check needs a native /completion answer (tokens_predicted, timings)", completion.exchange)
    return completion.raw


def sent_payload(completion: Completion) -> dict[str, Any]:
    """The JSON body of the request that produced this result."""
    expect(completion.exchange is not None and completion.exchange.request_body is not None,
           "the request of this result is not known")
    return json.loads(completion.exchange.request_body)


PROMPT_FORMS = ("a string", "token ids", "token ids then text", "a prompt_string object")


def prompt_in_form(http: HttpClient, text: str, form: str, headers: dict[str, str] | None = None) -> Any:
    """``text`` as a ``/completion`` prompt in one of the shapes the server accepts (``PROMPT_FORMS``):
    the string, its token ids, the first half of its ids followed by the rest as text, a prompt_string object."""
    if form == "a string":
        return text
    if form == "a prompt_string object":
        return {JSON_PROMPT_STRING_KEY: text}
    expect(form in PROMPT_FORMS, f"unknown prompt form '{form}': use {', '.join(PROMPT_FORMS)}")
    tokens = tokenize(http, text, add_special=True, headers=headers)
    if form == "token ids":
        return tokens
    expect(len(tokens) >= 2, f"'{text}' is a single token: it cannot be split into ids and text")
    half = len(tokens) // 2
    return [*tokens[:half], detokenize(http, tokens[half:], headers=headers)]


def prompt_tokens(http: HttpClient, prompt: Any, headers: dict[str, str] | None = None) -> list[int]:
    """The tokens the server makes of a prompt: a string, token ids, a mixed list or a ``prompt_string`` object."""
    if isinstance(prompt, dict):
        prompt = prompt[JSON_PROMPT_STRING_KEY]
    if isinstance(prompt, list) and all(isinstance(item, int) for item in prompt):
        return list(prompt)
    # /tokenize takes a mixed list too, and tokenizes it the way a completion prompt is tokenized
    return tokenize(http, prompt, headers=headers)


def assert_n_tokens_predicted(completion: Completion, expected_predicted_n: int | None = None,
                              re_content: str | None = None) -> None:
    """Content is non-empty, exactly N tokens were predicted, and the content matches the pattern.

    A native answer must say N both in ``timings.predicted_n`` and in ``tokens_predicted``.
    """
    expect(len(completion.content) > 0, "no token predicted: the content is empty", completion.exchange)
    if expected_predicted_n is not None:
        expect_equal(completion.predicted_n, expected_predicted_n, "number of tokens predicted",
                     completion.exchange)
        if isinstance(completion.raw, dict) and "tokens_predicted" in completion.raw:
            expect_equal(completion.raw["tokens_predicted"], expected_predicted_n, "tokens_predicted",
                         completion.exchange)
    if re_content is not None:
        pattern = "^.*" + re_content.replace("<or>", "|") + ".*$"
        expect(re.match(pattern, completion.content, flags=re.IGNORECASE | re.MULTILINE | re.DOTALL) is not None,
               f"content does not match /{pattern}/:\n```\n{completion.content}\n```", completion.exchange)


def expect_same_completion(first: Completion, other: Completion) -> None:
    expect_equal(other.content, first.content, "content of repeated completion", other.exchange)
    expect_equal(other.predicted_n, first.predicted_n, "tokens predicted by repeated completion", other.exchange)


def expect_token_probabilities(completion: Completion, n_probs: int) -> None:
    """``completion_probabilities``: one entry per predicted token, each with N ``top_logprobs``.

    Each entry has ``id``, ``token``, ``bytes`` and a ``logprob`` <= 0; the alternatives are sorted, most
    likely first; the entries' tokens spell the content; at temperature 0 the chosen token is the top one.
    """
    body = native_body(completion)
    probabilities = body.get("completion_probabilities")
    exchange = completion.exchange
    expect(isinstance(probabilities, list), "the answer has no completion_probabilities", exchange)
    expect_equal(len(probabilities), completion.predicted_n, "entries in completion_probabilities", exchange)
    greedy = sent_payload(completion).get("temperature") == 0
    for position, entry in enumerate(probabilities):
        where = f"completion_probabilities[{position}]"
        for key in ("id", "token", "bytes", "logprob"):
            expect(key in entry, f"{where} has no {key}", exchange)
        expect(entry["logprob"] <= 0.0, f"{where}.logprob must be <= 0, is {entry['logprob']}", exchange)
        top = entry.get("top_logprobs")
        expect(isinstance(top, list), f"{where} has no top_logprobs", exchange)
        expect_equal(len(top), n_probs, f"alternatives in {where}.top_logprobs", exchange)
        logprobs = [alternative["logprob"] for alternative in top]
        expect(logprobs == sorted(logprobs, reverse=True), f"{where}.top_logprobs is not sorted: {logprobs}",
               exchange)
        expect(all(value <= 0.0 for value in logprobs), f"{where}.top_logprobs has a logprob > 0", exchange)
        if greedy:
            expect_equal(entry["id"], top[0]["id"], f"{where}: at temperature 0 the chosen token is the top one",
                         exchange)
    spelled = b"".join(bytes(entry["bytes"]) for entry in probabilities).decode("utf-8", errors="replace")
    expect_equal(spelled, completion.content, "the probabilities' tokens joined", exchange)


def expect_stopped_at_word(completion: Completion, word: str, expected_text: str, previous: Completion) -> None:
    """The repeat ended right before the stop word: ``stop_type`` word, ``stopping_word``, the text before it."""
    body = native_body(completion)
    expect_equal(body.get("stop_type"), "word", "stop_type", completion.exchange)
    expect_equal(body.get("stopping_word"), word, "stopping_word", completion.exchange)
    expect_equal(completion.content, expected_text, f"content before the stop word {word!r}", completion.exchange)
    expect(completion.predicted_n <= previous.predicted_n,
           f"the stopped completion predicted {completion.predicted_n} tokens, more than the "
           f"{previous.predicted_n} of the full one", completion.exchange)
