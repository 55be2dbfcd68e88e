"""Native ``/completion`` requests (plain and streamed) and the checks on what they generated.

A native answer carries ``content``, ``tokens_predicted``, ``stop_type`` (``limit``, ``eos``, ``word``,
``none``), ``stopping_word``, ``truncated`` and ``timings`` (``prompt_n`` tokens processed, ``cache_n`` taken
from the KV cache, ``predicted_n`` generated). Streamed, it is a series of ``data:`` events with
``stop: false`` and a piece of ``content`` each, the last one with ``stop: true`` and the same fields as the
plain answer (its own ``content`` empty); no ``[DONE]`` follows.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from llama_bdd.harness.http import Exchange

from . import request  # noqa: F401 - request-building steps first
from .core import expect, expect_equal, expect_status, state_of, step
from .state import CORS_TEST_ORIGIN, Completion, RequestDraft
from .tokenize import detokenize, tokenize

JSON_PROMPT_STRING_KEY = "prompt_string"


@dataclass
class CompletionState:
    """What the completion steps remember between steps of a scenario."""

    last_payload: dict[str, Any] | None = None  # the last native completion body sent
    last_path: str = "/completion"  # where ``post_completion`` last sent it
    # the stop word of a repeated request, the text expected before it, and the full completion it came from
    stop_word: tuple[str, str, Completion] | None = None


def completion_payload(draft: RequestDraft, prompt: Any) -> dict[str, Any]:
    """The ``/completion`` body the original suite sent, plus streaming and any fields the scenario set."""
    payload = {"prompt": prompt, "n_predict": draft.n_predict if draft.n_predict is not None else -1,
               "seed": draft.effective_seed}
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


def expect_unauthorized(exchange: Exchange) -> None:
    """401 with ``error.type`` ``authentication_error``."""
    expect_status(exchange, 401)
    body = exchange.body
    error = body.get("error", {}) if isinstance(body, dict) else {}
    expect_equal(error.get("type"), "authentication_error", "error.type of the 401 response", exchange)


def post_completion(context: Any, payload: dict[str, Any], path: str = "/completion") -> Completion:
    """Send a native completion body, check the answer is a success, and keep the result."""
    state = state_of(context)
    remembered = state.part(CompletionState)
    remembered.last_payload = payload
    remembered.last_path = path
    exchange = state.client().post(path, payload, headers=completion_headers(state.request))
    state.results.last = exchange
    result = native_completion(exchange)
    state.results.completions.append(result)
    return result


def send_completion(context: Any, prompt: Any, expect_api_error: bool) -> Exchange:
    state = state_of(context)
    payload = completion_payload(state.request, prompt)
    if expect_api_error:
        state.part(CompletionState).last_payload = payload
        exchange = state.client().post("/completion", payload, headers=completion_headers(state.request))
        state.results.last = exchange
        expect_unauthorized(exchange)
        return exchange
    return post_completion(context, payload).exchange


def pop_prompt(context: Any, kind: str = "prompt") -> str:
    """The last queued prompt, taken off the queue (``kind`` names the step that queues one)."""
    prompts = state_of(context).request.prompts
    expect(bool(prompts), f"no {kind} queued: add 'Given a {kind} ...' first")
    return prompts.pop()


def last_completion(context: Any) -> Completion:
    """The most recent result, left in place (``N tokens are predicted`` is the step that consumes one)."""
    completions = state_of(context).results.completions
    expect(bool(completions), "no completion result to check: send a request first")
    return completions[-1]


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


def prompt_tokens(context: Any, prompt: Any) -> list[int]:
    """The tokens the server makes of a prompt: a string, token ids, a mixed list or a ``prompt_string`` object."""
    if isinstance(prompt, dict):
        prompt = prompt[JSON_PROMPT_STRING_KEY]
    if isinstance(prompt, list) and all(isinstance(item, int) for item in prompt):
        return list(prompt)
    # /tokenize takes a mixed list too, and tokenizes it the way a completion prompt is tokenized
    return tokenize(context, prompt)


# ----------------------------------------------------------------------------------------------
# sending
# ----------------------------------------------------------------------------------------------

@step("a completion request with {api_error} api error")
def step_completion_request(context: Any, api_error: str) -> None:
    """Send the last queued prompt to ``/completion``; ``raised`` expects a 401 authentication error.

    With ``streaming is enabled`` the answer is streamed and checked as a stream.

        Given a prompt I believe the meaning of life is
        And   a completion request with no api error
        And   a completion request with raised api error
    """
    if api_error not in ("no", "raised"):
        raise AssertionError(f"'{api_error} api error': say 'no' or 'raised'")
    send_completion(context, pop_prompt(context), expect_api_error=api_error == "raised")


@step("the queued prompt is completed through {path}")
def step_completion_request_to(context: Any, path: str) -> None:
    """Send the last queued prompt to a native completion route (``/completion`` or ``/completions``).

        When the queued prompt is completed through /completions
    """
    post_completion(context, completion_payload(state_of(context).request, pop_prompt(context)), path)


@step("the completion request is sent again")
def step_completion_again(context: Any) -> None:
    """Send the previous ``/completion`` body once more, unchanged.

        When the completion request is sent again
    """
    remembered = state_of(context).part(CompletionState)
    payload = remembered.last_payload
    expect(payload is not None, "no completion request was sent before")
    post_completion(context, payload, remembered.last_path)


@step("the completion request is sent again streamed")
def step_completion_again_streamed(context: Any) -> None:
    """Send the previous ``/completion`` body once more with ``stream: true``.

        When the completion request is sent again streamed
    """
    remembered = state_of(context).part(CompletionState)
    payload = remembered.last_payload
    expect(payload is not None, "no completion request was sent before")
    post_completion(context, {**payload, "stream": True}, remembered.last_path)


@step('the prompt "{text}" is completed as {form}')
def step_prompt_completed_as(context: Any, text: str, form: str) -> None:
    """Send one prompt to ``/completion`` in one of the shapes the server accepts.

    ``a string``; ``token ids`` (from ``/tokenize``); ``token ids then text`` (the first tokens as ids,
    the rest as a string in the same list); ``a prompt_string object`` (``{"prompt_string": ...}``).

        When the prompt "Once upon a time" is completed as token ids then text
    """
    state = state_of(context)
    if form == "a string":
        prompt: Any = text
    elif form == "token ids":
        prompt = tokenize(context, text, add_special=True)
    elif form == "token ids then text":
        tokens = tokenize(context, text, add_special=True)
        expect(len(tokens) >= 2, f"'{text}' is a single token: it cannot be split into ids and text")
        half = len(tokens) // 2
        prompt = [*tokens[:half], detokenize(context, tokens[half:])]
    elif form == "a prompt_string object":
        prompt = {JSON_PROMPT_STRING_KEY: text}
    else:
        raise AssertionError(f"unknown prompt form '{form}': use a string, token ids, token ids then text, "
                             f"or a prompt_string object")
    post_completion(context, completion_payload(state.request, prompt))


@step("the queued prompts are completed in one request")
def step_prompts_in_one_request(context: Any) -> None:
    """Send every queued prompt as one ``/completion`` whose ``prompt`` is the list; one result per prompt.

        When the queued prompts are completed in one request
    """
    state = state_of(context)
    prompts, state.request.prompts = list(state.request.prompts), []
    expect(len(prompts) >= 2, "queue at least two prompts ('Given a prompt ...') for a batch request")
    payload = completion_payload(state.request, prompts)
    state.part(CompletionState).last_payload = payload
    exchange = state.client().post("/completion", payload, headers=completion_headers(state.request))
    state.results.last = exchange
    expect_status(exchange, 200)
    answers = exchange.body
    expect(isinstance(answers, list), "a list of prompts must be answered with a list of completions", exchange)
    expect_equal(len(answers), len(prompts), "completions for a list of prompts", exchange)
    expect_equal([answer.get("index") for answer in answers], list(range(len(prompts))),
                 "index of each completion (in prompt order)", exchange)
    for answer in answers:
        state.results.completions.append(Completion(content=answer["content"],
                                                    predicted_n=answer["timings"]["predicted_n"],
                                                    exchange=exchange, finish_reason=answer.get("stop_type"),
                                                    raw=answer))


@step("the completion request is sent again stopping at word {index:d} of its text")
def step_again_with_stop_word(context: Any, index: int) -> None:
    """Repeat the last request with the Nth word of the text it generated as its only ``stop`` string.

    Run it at temperature 0: the repeat generates the same text up to that word, so the server must end
    the completion right before the word's first occurrence.

        When the completion request is sent again stopping at word 3 of its text
    """
    remembered = state_of(context).part(CompletionState)
    previous = last_completion(context)
    words = previous.content.split()
    expect(len(words) >= index, f"the completion has only {len(words)} words, word {index} asked",
           previous.exchange)
    word = words[index - 1]
    payload = {**remembered.last_payload, "stop": [word]}
    remembered.stop_word = (word, previous.content[:previous.content.index(word)], previous)
    post_completion(context, payload, remembered.last_path)


# ----------------------------------------------------------------------------------------------
# checks
# ----------------------------------------------------------------------------------------------

@step("the last {count:d} completions are identical")
def step_completions_identical(context: Any, count: int) -> None:
    """The last N completions have the same content and token count.

        Then the last 2 completions are identical
    """
    completions = state_of(context).results.completions[-count:]
    expect_equal(len(completions), count, "completions received")
    first = completions[0]
    for other in completions[1:]:
        expect_equal(other.content, first.content, "content of repeated completion", other.exchange)
        expect_equal(other.predicted_n, first.predicted_n, "tokens predicted by repeated completion",
                     other.exchange)


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


def pop_completion(context: Any) -> Completion:
    completions = state_of(context).results.completions
    expect(bool(completions), "no completion result to check: send a request first")
    return completions.pop()


@step("{predicted_n:d} tokens are predicted matching {re_content}")
def step_tokens_predicted_matching(context: Any, predicted_n: int, re_content: str) -> None:
    """The last result has exactly N tokens and its content matches the regex (``<or>`` means ``|``).

    The result is consumed: a second such step checks the result before it.

        Then 8 tokens are predicted matching (read<or>going)
    """
    assert_n_tokens_predicted(pop_completion(context), predicted_n, re_content)


@step("{predicted_n:d} tokens are predicted")
def step_tokens_predicted(context: Any, predicted_n: int) -> None:
    """The last result has non-empty content of exactly N tokens (native: timings and tokens_predicted).

    The result is consumed: a second such step checks the result before it.

        Then 16 tokens are predicted
    """
    assert_n_tokens_predicted(pop_completion(context), predicted_n)


@step("the finish reason is {reason:w}")
def step_finish_reason(context: Any, reason: str) -> None:
    """Why the last result ended: OpenAI ``finish_reason`` (stop, length) or native ``stop_type``.

    Native stop types: ``limit`` (n_predict or context reached), ``eos``, ``word`` (a stop string), ``none``.

        Then the finish reason is length
        Then the finish reason is limit
    """
    completion = last_completion(context)
    expect_equal(completion.finish_reason, reason, "finish reason", completion.exchange)


@step("the completion stopped at that word")
def step_stopped_at_word(context: Any) -> None:
    """The repeat ended right before the stop word: ``stop_type`` word, ``stopping_word``, the text before it.

        Then the completion stopped at that word
    """
    entry = state_of(context).part(CompletionState).stop_word
    expect(entry is not None, "no stop word was set: add 'When the completion request is sent again stopping "
                              "at word N of its text' first")
    word, expected_text, previous = entry
    completion = last_completion(context)
    body = native_body(completion)
    expect_equal(body.get("stop_type"), "word", "stop_type", completion.exchange)
    expect_equal(body.get("stopping_word"), word, "stopping_word", completion.exchange)
    expect_equal(completion.content, expected_text, f"content before the stop word {word!r}", completion.exchange)
    expect(completion.predicted_n <= previous.predicted_n,
           f"the stopped completion predicted {completion.predicted_n} tokens, more than the "
           f"{previous.predicted_n} of the full one", completion.exchange)


@step("the timings account for every prompt token")
def step_timings_account_for_prompt(context: Any) -> None:
    """``timings.prompt_n + timings.cache_n`` equals the prompt's token count (as ``/tokenize`` counts it).

        Then the timings account for every prompt token
    """
    completion = last_completion(context)
    timings = native_body(completion)["timings"]
    n_prompt = len(prompt_tokens(context, sent_payload(completion)["prompt"]))
    expect_equal(timings["prompt_n"] + timings["cache_n"], n_prompt,
                 f"timings.prompt_n ({timings['prompt_n']}) + timings.cache_n ({timings['cache_n']})",
                 completion.exchange)


@step("no prompt token came from the cache")
def step_nothing_cached(context: Any) -> None:
    """``timings.cache_n`` is 0: the whole prompt was processed (e.g. with ``cache_prompt`` false).

        Then no prompt token came from the cache
    """
    completion = last_completion(context)
    expect_equal(native_body(completion)["timings"]["cache_n"], 0, "timings.cache_n", completion.exchange)


@step("the previous prompt came from the cache")
def step_previous_prompt_cached(context: Any) -> None:
    """The last completion reused the KV cache of the one before it: ``cache_n`` covers their common prefix.

    The common prefix is counted in tokens, from ``/tokenize`` of both prompts; at least one prompt token
    is always processed again, so a prompt repeated whole gets ``cache_n`` = its length - 1.

        Then the previous prompt came from the cache
    """
    completions = state_of(context).results.completions
    expect(len(completions) >= 2, "this check compares two completions: send two requests first")
    previous, current = completions[-2], completions[-1]
    old = prompt_tokens(context, sent_payload(previous)["prompt"])
    new = prompt_tokens(context, sent_payload(current)["prompt"])
    common = 0
    while common < min(len(old), len(new)) and old[common] == new[common]:
        common += 1
    expect(common > 0, "the two prompts share no token, so nothing could come from the cache: "
                       "give them a common beginning")
    cached = native_body(current)["timings"]["cache_n"]
    expected = min(common, len(new) - 1)
    expect(cached >= expected, f"timings.cache_n is {cached}; the two prompts share {common} tokens, so at "
                               f"least {expected} should come from the cache", current.exchange)


@step("each predicted token comes with its {n_probs:d} most likely tokens")
def step_token_probabilities(context: Any, n_probs: int) -> None:
    """``completion_probabilities``: one entry per predicted token, each with N ``top_logprobs``.

    Each entry has ``id``, ``token``, ``bytes`` and a ``logprob`` <= 0; the alternatives are sorted, most
    likely first; the entries' tokens spell the content; at temperature 0 the chosen token is the top one.

        Then each predicted token comes with its 5 most likely tokens
    """
    completion = last_completion(context)
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


@step("each predicted token comes with one probability per vocabulary token")
def step_token_probabilities_whole_vocabulary(context: Any) -> None:
    """``n_probs`` above the vocabulary size is capped at it: N = ``meta.n_vocab`` of ``/v1/models``.

        Then each predicted token comes with one probability per vocabulary token
    """
    models = expect_status(state_of(context).client().get("/v1/models"), 200)
    n_vocab = models.body["data"][0]["meta"]["n_vocab"]
    completion = last_completion(context)
    probabilities = native_body(completion).get("completion_probabilities")
    expect(isinstance(probabilities, list) and len(probabilities) > 0, "the answer has no completion_probabilities",
           completion.exchange)
    for position, entry in enumerate(probabilities):
        expect_equal(len(entry.get("top_logprobs", [])), n_vocab,
                     f"alternatives in completion_probabilities[{position}] (n_vocab)", completion.exchange)


@step("no token probabilities are returned")
def step_no_token_probabilities(context: Any) -> None:
    """The answer has no ``completion_probabilities`` (``n_probs`` 0 or below).

        Then no token probabilities are returned
    """
    completion = last_completion(context)
    expect("completion_probabilities" not in native_body(completion),
           "the answer has completion_probabilities, none expected", completion.exchange)


@step("the completion generation settings say n_predict {n_predict:d}")
def step_generation_settings_n_predict(context: Any, n_predict: int) -> None:
    """``generation_settings.n_predict`` of the last native answer (what the request asked, -1 = unlimited).

        Then the completion generation settings say n_predict -1
    """
    completion = last_completion(context)
    settings = native_body(completion).get("generation_settings", {})
    expect_equal(settings.get("n_predict"), n_predict, "generation_settings.n_predict", completion.exchange)


@step("the queued prompt is posted to {path} as it is")
def step_prompt_posted_as_is(context: Any, path: str) -> None:
    """Send the last queued prompt as a native completion and keep whatever comes back, error or not.

    For requests the server should refuse; check the answer with ``the request is rejected with ...``.

        When the queued prompt is posted to /completion as it is
    """
    state = state_of(context)
    payload = completion_payload(state.request, pop_prompt(context))
    state.part(CompletionState).last_payload = payload
    state.results.last = state.client().post(path, payload, headers=completion_headers(state.request))
