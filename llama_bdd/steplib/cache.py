"""Named prompts evaluated into the KV cache, what their timings say about cache reuse, and log tags.

Shared by the slot save/restore, disk prompt cache and RAM prompt cache features. A named prompt is
evaluated with ``n_predict`` 0 and ``cache_prompt`` true: the server only fills the KV cache, and the
response's ``timings`` tell how many prompt tokens were processed (``prompt_n``) and how many came from a
cache (``cache_n``). A prompt served whole from a cache re-processes only its last token.
"""

from __future__ import annotations

import time
from typing import Any

from llama_bdd.client.cache import NamedPrompt, evaluation_timings
from llama_bdd.harness.http import Exchange
from llama_bdd.harness.logs import LogReader
from llama_bdd.harness.multimodal import multimodal_model, sample_image_base64

from .core import expect, expect_equal, skip_scenario, state_of, step
from .core.scenario import evaluation_payload, named_prompt, prompt_token_count
from .core.state import CacheState

LOG_TAG_TIMEOUT = 10.0  # the server pumps its log to the file asynchronously
LOG_SETTLE_SECONDS = 0.5  # how long a tag is given to appear before its absence counts


def _cache_state(context: Any) -> CacheState:
    return state_of(context).part(CacheState)


def last_timings(context: Any, name: str) -> tuple[dict[str, Any], Exchange]:
    timings = _cache_state(context).timings
    expect(name in timings, f"prompt {name} was not evaluated yet: add 'When prompt {name} is evaluated' first")
    return timings[name]


def record_evaluation(context: Any, name: str, exchange: Exchange) -> None:
    """Check a prompt evaluation answered 200 with timings, and remember them under the prompt's name."""
    timings = evaluation_timings(exchange)
    remembered = _cache_state(context)
    remembered.timings[name] = (timings, exchange)
    remembered.token_counts.setdefault(name, timings["prompt_n"] + timings["cache_n"])


# ----------------------------------------------------------------------------------------------
# named prompts
# ----------------------------------------------------------------------------------------------

@step('prompt {name:w} is "{text}"')
def step_named_prompt(context: Any, name: str, text: str) -> None:
    """Name a one-line text prompt, to evaluate it (and check its cache reuse) later.

        Given prompt A is "Once upon a time in a land far away, there lived a brave knight"
    """
    _cache_state(context).prompts[name] = NamedPrompt(name, text=text)


@step("prompt {name:w} is:")
def step_named_prompt_text(context: Any, name: str) -> None:
    """Name the step's text block as a prompt.

        Given prompt A is:
          \"\"\"
          Once upon a time in a land far away, there lived a brave knight.
          \"\"\"
    """
    _cache_state(context).prompts[name] = NamedPrompt(name, text=context.text)


@step("prompt {name:w} is the token {token:d} repeated {count:d} times")
def step_named_prompt_tokens(context: Any, name: str, token: int, count: int) -> None:
    """Name a prompt of token ids: one token repeated, for prompts of an exact length (and cache size).

        Given prompt L1 is the token 100 repeated 100 times
    """
    _cache_state(context).prompts[name] = NamedPrompt(name, tokens=[token] * count)


@step("a multimodal model with its projector")
def step_multimodal_model(context: Any) -> None:
    """Serve the multimodal model named by ``LLAMA_BDD_MM_MODEL_PATH`` with ``--mmproj LLAMA_BDD_MMPROJ_PATH``.

    The scenario is skipped, with that reason, when they are not set.

        Given a multimodal model with its projector
    """
    model, reason = multimodal_model()
    if model is None:
        skip_scenario(context, reason)
        return
    config = state_of(context).config
    config.model_file = model.model
    config.options["--mmproj"] = str(model.projector)


@step('prompt {name:w} is "{text}" with an image')
def step_named_prompt_image(context: Any, name: str, text: str) -> None:
    """Name a prompt of text and a small generated PNG; ``{marker}`` in the text is where the image goes.

    Needs a server with a multimodal projector; the image is made on the spot, nothing is downloaded.

        Given prompt IMG is "What is this: {marker}" with an image
    """
    expect("{marker}" in text, "put {marker} in the text where the image goes")
    _cache_state(context).prompts[name] = NamedPrompt(name, text=text, image_base64=sample_image_base64())


# ----------------------------------------------------------------------------------------------
# evaluating them
# ----------------------------------------------------------------------------------------------

@step("prompt {name:w} is evaluated", fresh_server=True)
def step_evaluate_prompt(context: Any, name: str) -> None:
    """Evaluate the prompt into a slot's KV cache (``/completion``, ``n_predict`` 0, ``cache_prompt`` true).

    The answer must be 200 with timings; they are remembered for the checks below, and the first
    evaluation fixes the prompt's token count. Fields set with 'the request field X is Y' are sent too.

        When prompt A is evaluated
    """
    state = state_of(context)
    prompt = named_prompt(context, name)
    exchange = state.client().post("/completion", evaluation_payload(context, prompt))
    state.results.last = exchange
    record_evaluation(context, name, exchange)


# ----------------------------------------------------------------------------------------------
# what the timings say
# ----------------------------------------------------------------------------------------------

@step("prompt {name:w} was processed in full", fresh_server=True)
def step_prompt_processed_in_full(context: Any, name: str) -> None:
    """The last evaluation reused nothing: ``cache_n`` is 0 and ``prompt_n`` is the prompt's token count.

        Then prompt A was processed in full
    """
    timings, exchange = last_timings(context, name)
    expect_equal(timings["cache_n"], 0, f"timings.cache_n of prompt {name} (tokens taken from a cache)", exchange)
    expect_equal(timings["prompt_n"], prompt_token_count(context, name),
                 f"timings.prompt_n of prompt {name} (its token count when first evaluated)", exchange)


@step("prompt {name:w} was served from the cache", fresh_server=True)
def step_prompt_served_from_cache(context: Any, name: str) -> None:
    """The whole prompt came from a cache: only its last token was processed again.

    ``prompt_n`` is 1 and ``cache_n`` is the prompt's token count minus one.

        Then prompt A was served from the cache
    """
    timings, exchange = last_timings(context, name)
    expect_equal(timings["prompt_n"], 1, f"timings.prompt_n of prompt {name} (only its last token re-evaluated)",
                 exchange)
    expect_equal(timings["cache_n"], prompt_token_count(context, name) - 1,
                 f"timings.cache_n of prompt {name} (its token count minus one)", exchange)


@step("prompt {name:w} reused the cache", fresh_server=True)
def step_prompt_reused_cache(context: Any, name: str) -> None:
    """Some of the prompt came from a cache (``cache_n`` > 0).

        Then prompt A reused the cache
    """
    timings, exchange = last_timings(context, name)
    expect(timings["cache_n"] > 0, f"timings.cache_n of prompt {name} should be > 0, got {timings['cache_n']}",
           exchange)


# ----------------------------------------------------------------------------------------------
# log tags
# ----------------------------------------------------------------------------------------------

@step("the server log is verbose")
def step_server_log_verbose(context: Any) -> None:
    """Start the server with ``--verbose``: debug lines and ``__TEST_TAG_...__`` markers reach its log.

        Given the server log is verbose
    """
    state_of(context).config.verbose = True


def _server_log(context: Any) -> LogReader:
    state = state_of(context)
    expect(state.server is not None, "the server log is only readable for a server this scenario started")
    expect(state.config.verbose, "log tags are printed with --verbose only: add 'Given the server log is verbose'")
    return LogReader(state.server.log_path)


@step("the server log shows {text}", fresh_server=True)
def step_server_log_shows(context: Any, text: str) -> None:
    """The running server's log contains the text, within 10 s (it is written asynchronously).

    Stops waiting early if the server exits.

        Then the server log shows __TEST_TAG_CACHE_DISK_HIT__
    """
    state = state_of(context)
    reader = _server_log(context)
    server = state.server
    found = reader.wait_for(text, LOG_TAG_TIMEOUT, bail=lambda: not server.is_running())
    expect(found, f"'{text}' did not appear in the server log {server.log_path} within {LOG_TAG_TIMEOUT:.0f}s"
                  + ("" if server.is_running() else " (the server exited)"))


@step("the server log does not show {text}", fresh_server=True)
def step_server_log_does_not_show(context: Any, text: str) -> None:
    """The running server's log does not contain the text, after half a second for pending lines.

        Then the server log does not show __TEST_TAG_CACHE_DISK_HIT__
    """
    reader = _server_log(context)
    time.sleep(LOG_SETTLE_SECONDS)
    log = reader.drain()
    expect(text not in log, f"'{text}' appeared in the server log {reader.path}:\n"
                            + "\n".join(line for line in log.splitlines() if text in line)[-2000:])
