"""Request phrases of llama.cpp's final behave suite (November 2024): fields, passkey and fixed prompts,
prompts with their own seed, ``/infill``, and the checks on the generations that came back.

The request fields go into every following request (``the request field ... is ...`` does the same);
prompts with a seed carry it into their own request. The checks read the last generation's answer
(native ``truncated``/``timings.prompt_n``, OpenAI ``finish_reason``/``usage.prompt_tokens``), so they work
after ``N tokens are predicted`` has consumed the result.
"""

from __future__ import annotations

import json
from typing import Any

from llama_bdd.client import legacy
from llama_bdd.client.completion import completion_headers, completion_payload, native_completion
from llama_bdd.client.infill import InfillDraft, unescape
from llama_bdd.client.prompts import PasskeyDraft, SeededPrompt, fixed_prompts
from llama_bdd.harness.http import Exchange

from .core import expect, expect_equal, expect_status, state_of, step
from .core.scenario import gather_results, pop_prompt

# what the original suite's completion requests always asked for (its token probability checks need them)
ORIGINAL_N_PROBS = 2
GENERATION_ROUTES = ("/completion", "/completions", "/chat/completions", "/infill")


# ----------------------------------------------------------------------------------------------
# request fields
# ----------------------------------------------------------------------------------------------

@step("{seed:d} as seed")
def step_request_seed(context: Any, seed: int) -> None:
    """The request seed: of the prompts queued so far that have none, and of every later request.

    Used between prompts it gives each prompt its own seed (one seed per queued prompt).

        Given 42 as seed
    """
    request = state_of(context).request
    request.seed = seed
    request.prompts[:] = [p if isinstance(p, SeededPrompt) else SeededPrompt(p, seed) for p in request.prompts]


@step("{temperature:f} temperature")
def step_temperature(context: Any, temperature: float) -> None:
    """Sampling temperature of the following requests (``temperature``).

        Given 0.8 temperature
    """
    state_of(context).request.fields["temperature"] = temperature


@step("prompt caching is enabled")
def step_prompt_caching(context: Any) -> None:
    """Ask the server to reuse the slot's cached prompt (``cache_prompt: true``).

        Given prompt caching is enabled
    """
    state_of(context).request.fields["cache_prompt"] = True


@step("using slot id {id_slot:d}")
def step_using_slot(context: Any, id_slot: int) -> None:
    """Send the following requests to this slot (``id_slot``).

        Given using slot id 1
    """
    state_of(context).request.fields["id_slot"] = id_slot


@step("a response format {response_format}")
def step_response_format(context: Any, response_format: str) -> None:
    """The ``response_format`` of the following requests, given as JSON.

        Given a response format {"type": "json_object", "schema": {"const": "42"}}
    """
    try:
        state_of(context).request.fields["response_format"] = json.loads(response_format)
    except ValueError as error:
        raise AssertionError(f"the response format is not JSON ({error}): {response_format}") from None


# ----------------------------------------------------------------------------------------------
# prompts
# ----------------------------------------------------------------------------------------------

@step("{n_junk:d} as number of junk")
def step_number_of_junk(context: Any, n_junk: int) -> None:
    """How many times the junk text is repeated in a passkey challenge.

        Given 250 as number of junk
    """
    state_of(context).part(PasskeyDraft).n_junk = n_junk


@step("a prefix prompt", "a prefix prompt:")
def step_prefix_prompt(context: Any) -> None:
    """The text block a passkey challenge starts with.

        Given a prefix prompt:
          \"\"\"
          Here is an important info hidden inside a lot of irrelevant text.
          \"\"\"
    """
    state_of(context).part(PasskeyDraft).prefix = context.text


@step("a passkey prompt template", "a passkey prompt template:")
def step_passkey_template(context: Any) -> None:
    """The sentence that hides the passkey (``<passkey>`` in it is replaced by the passkey).

        Given a passkey prompt template:
          \"\"\"
          The pass key is <passkey>. Remember it.
          \"\"\"
    """
    state_of(context).part(PasskeyDraft).template = context.text


@step("a junk suffix prompt", "a junk suffix prompt:")
def step_junk_suffix_prompt(context: Any) -> None:
    """The junk text repeated in a passkey challenge.

        Given a junk suffix prompt:
          \"\"\"
          The grass is green. The sky is blue.
          \"\"\"
    """
    state_of(context).part(PasskeyDraft).junk_suffix = context.text


@step("a suffix prompt", "a suffix prompt:")
def step_suffix_prompt(context: Any) -> None:
    """The text block a passkey challenge ends with (the question).

        Given a suffix prompt:
          \"\"\"
          What is the pass key? The pass key is
          \"\"\"
    """
    state_of(context).part(PasskeyDraft).suffix = context.text


@step('a "{passkey}" passkey challenge prompt with the passkey inserted every {i_pos:d} junk')
def step_passkey_challenge(context: Any, passkey: str, i_pos: int) -> None:
    """Queue the passkey challenge: prefix, the junk repeated, the passkey sentence at junk ``i_pos``, suffix.

        Given a "42" passkey challenge prompt with the passkey inserted every 5 junk
    """
    state = state_of(context)
    state.request.prompts.append(state.part(PasskeyDraft).challenge(passkey, i_pos))


@step("{n_prompts:d} fixed prompts")
def step_fixed_prompts(context: Any, n_prompts: int) -> None:
    """Queue N identical prompts of batch-size zeros (``--batch-size`` of the scenario, else 512).

        Given 10 fixed prompts
    """
    state = state_of(context)
    state.request.prompts.extend(fixed_prompts(n_prompts, state.config.n_batch))


@step("{num_prompts:d} prompts {prompt} with seed {seed:d}")
def step_prompts_with_seed(context: Any, num_prompts: int, prompt: str, seed: int) -> None:
    """Queue the prompt N times, each request with this seed (and ``n_probs`` 2, as the original sent).

        Given 4 prompts "Write a very long story about AI." with seed 42
    """
    request = state_of(context).request
    request.prompts.extend(SeededPrompt(prompt, seed) for _ in range(num_prompts))
    request.fields.setdefault("n_probs", ORIGINAL_N_PROBS)


# ----------------------------------------------------------------------------------------------
# /infill
# ----------------------------------------------------------------------------------------------

@step("an infill input prefix {text}")
def step_infill_prefix(context: Any, text: str) -> None:
    """The code before the cursor (``input_prefix``; ``\\n`` escapes are decoded).

        Given an infill input prefix #include <cstdio>\\nint main() {\\n
    """
    state_of(context).part(InfillDraft).prefix = unescape(text)


@step("an infill input suffix {text}")
def step_infill_suffix(context: Any, text: str) -> None:
    """The code after the cursor (``input_suffix``; ``\\n`` escapes are decoded).

        Given an infill input suffix }\\n
    """
    state_of(context).part(InfillDraft).suffix = unescape(text)


@step("an infill input extra {filename} {text}")
def step_infill_extra(context: Any, filename: str, text: str) -> None:
    """One extra context file (``input_extra``); ``none none`` sends none.

        Given an infill input extra llama.h LLAMA_API int32_t llama_n_threads();\\n
        Given an infill input extra none none
    """
    state_of(context).part(InfillDraft).set_extra(filename, text)


@step("an infill request with {api_error} api error")
def step_infill_request(context: Any, api_error: str) -> None:
    """Send the last queued prompt with the infill parts to ``/infill``.

    ``no``: a successful native answer (checked by ``N tokens are predicted``); ``raised``: an error status;
    a number: that status.

        Given an infill request with no api error
    """
    state = state_of(context)
    draft = state.request
    payload = state.part(InfillDraft).payload(completion_payload(draft, pop_prompt(context)))
    exchange = state.client().post("/infill", payload, headers=completion_headers(draft))
    state.results.last = exchange
    if api_error == "no":
        state.results.completions.append(native_completion(exchange))
    elif api_error == "raised":
        expect(exchange.status is not None and exchange.status >= 400, "expected an error status", exchange)
    else:
        expect(api_error.isdigit(), f"'{api_error} api error': say no, raised or a status code")
        expect_status(exchange, int(api_error))


# ----------------------------------------------------------------------------------------------
# checks
# ----------------------------------------------------------------------------------------------

def _all_generations(context: Any) -> list[Any]:
    """The results of the concurrent requests (gathered, bounded) and of the requests not yet checked."""
    state = state_of(context)
    if state.results.pending:
        state.results.completions.extend(gather_results(context))
    return list(state.results.completions)


def _last_generation(context: Any) -> Exchange:
    state = state_of(context)
    for exchange in reversed(state.exchanges()):
        if exchange.url.split("?")[0].endswith(GENERATION_ROUTES):
            return exchange
    raise AssertionError("no generation request was sent yet")


@step("all predictions are equal")
def step_predictions_equal(context: Any) -> None:
    """Every generation (at least 2, concurrent ones gathered first) has the same content.

        Then all predictions are equal
    """
    legacy.expect_predictions_agree(_all_generations(context), equal=True)


@step("all predictions are different")
def step_predictions_different(context: Any) -> None:
    """The generations (at least 2, concurrent ones gathered first) have pairwise different contents.

        Then all predictions are different
    """
    legacy.expect_predictions_agree(_all_generations(context), equal=False)


@step("all token probabilities are equal")
def step_token_probabilities_equal(context: Any) -> None:
    """The generations (at least 2) chose the same tokens with the same top probabilities.

        Then all token probabilities are equal
    """
    legacy.expect_same_token_probabilities(_all_generations(context))


@step("the completion is  truncated")
def step_completion_truncated(context: Any) -> None:
    """The last generation was truncated (two spaces: the original's spelling, from an empty Examples cell).

        Then the completion is  truncated
    """
    exchange = _last_generation(context)
    expect_equal(legacy.was_truncated(exchange), True, "truncated", exchange)


@step("the completion is {truncated} truncated")
def step_completion_not_truncated(context: Any, truncated: str) -> None:
    """``not``: the last generation was not truncated (native ``truncated``, OpenAI ``finish_reason`` stop).

        Then the completion is not truncated
    """
    expect(truncated == "not", f"'the completion is {truncated} truncated': say 'not', or leave it empty")
    exchange = _last_generation(context)
    expect_equal(legacy.was_truncated(exchange), False, "truncated", exchange)


@step("{n_prompt:d} prompt tokens are processed", fresh_server=True)
def step_prompt_tokens_processed(context: Any, n_prompt: int) -> None:
    """The last generation processed N prompt tokens (``timings.prompt_n`` / ``usage.prompt_tokens``); a
    negative N accepts any count.

        Then 18 prompt tokens are processed
    """
    if n_prompt < 0:
        return
    exchange = _last_generation(context)
    expect_equal(legacy.prompt_tokens_processed(exchange), n_prompt, "prompt tokens processed", exchange)
