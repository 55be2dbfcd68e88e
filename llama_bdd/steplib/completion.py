"""Native ``/completion`` steps: requests plain and streamed, and the checks on what they generated.

A native answer carries ``content``, ``tokens_predicted``, ``stop_type`` (``limit``, ``eos``, ``word``,
``none``), ``stopping_word``, ``truncated`` and ``timings`` (``prompt_n`` tokens processed, ``cache_n`` taken
from the KV cache, ``predicted_n`` generated). Streamed, it is a series of ``data:`` events with
``stop: false`` and a piece of ``content`` each, the last one with ``stop: true`` and the same fields as the
plain answer (its own ``content`` empty); no ``[DONE]`` follows.
"""

from __future__ import annotations

from typing import Any

from llama_bdd.client.answers import Completion
from llama_bdd.client.checks import expect, expect_equal, expect_status, expect_unauthorized
from llama_bdd.client.completion import (assert_n_tokens_predicted, batch_completions, prompt_in_form,
                                         completion_headers, completion_payload, expect_same_completion,
                                         expect_stopped_at_word, expect_token_probabilities, native_body,
                                         native_completion, sent_payload)
from llama_bdd.client.tokenize import common_prefix_length
from llama_bdd.harness.http import Exchange

from .core import state_of, step
from .core.scenario import last_completion, model_facts, pop_prompt, prompt_tokens
from .core.state import CompletionState


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


def pop_completion(context: Any) -> Completion:
    completions = state_of(context).results.completions
    expect(bool(completions), "no completion result to check: send a request first")
    return completions.pop()


# ----------------------------------------------------------------------------------------------
# sending
# ----------------------------------------------------------------------------------------------

@step("a completion request with {api_error} api error")
def step_completion_request(context: Any, api_error: str) -> None:
    """Send the last queued prompt to ``/completion``; ``raised`` expects a 401 authentication error, a number
    (the final-era suite's form) that HTTP status.

    With ``streaming is enabled`` the answer is streamed and checked as a stream.

        Given a prompt I believe the meaning of life is
        And   a completion request with no api error
        And   a completion request with raised api error
        And   a completion request with 400 api error
    """
    if api_error.isdigit():
        state = state_of(context)
        payload = completion_payload(state.request, pop_prompt(context))
        state.part(CompletionState).last_payload = payload
        state.results.last = state.client().post("/completion", payload, headers=completion_headers(state.request))
        expect_status(state.results.last, int(api_error))
        return
    expect(api_error in ("no", "raised"), f"'{api_error} api error': say 'no', 'raised' or an HTTP status")
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
    prompt = prompt_in_form(state.client(), text, form, headers=state.request.auth_headers())
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
    state.results.completions.extend(batch_completions(exchange, len(prompts)))


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
    for other in completions[1:]:
        expect_same_completion(completions[0], other)


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
    expect_stopped_at_word(last_completion(context), word, expected_text, previous)


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
    common = common_prefix_length(old, new)
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
    expect_token_probabilities(last_completion(context), n_probs)


@step("n_probs of {extra:d} more than the model's vocabulary size")
def step_n_probs_above_vocabulary(context: Any, extra: int) -> None:
    """``n_probs`` = ``meta.n_vocab`` of ``/v1/models`` + ``extra``: above the vocabulary of whatever model
    the server runs (SmolLM2: 49152 tokens, Gemma 3: 262144).

        Given n_probs of 1000 more than the model's vocabulary size
    """
    n_vocab = model_facts(context).n_vocab
    expect(isinstance(n_vocab, int) and n_vocab > 0, f"/v1/models names no meta.n_vocab (got {n_vocab!r})")
    state_of(context).request.fields["n_probs"] = n_vocab + extra


@step("each predicted token comes with one probability per vocabulary token")
def step_token_probabilities_whole_vocabulary(context: Any) -> None:
    """``n_probs`` above the vocabulary size is capped at it: N = ``meta.n_vocab`` of ``/v1/models``.

        Then each predicted token comes with one probability per vocabulary token
    """
    n_vocab = model_facts(context).n_vocab
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
