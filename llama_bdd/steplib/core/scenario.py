"""What several step domains do with the scenario's state: queued prompts, results, sending, token counts.

The step modules never import one another; what more than one of them needs about the scenario lives here,
as thin bridges from the scenario state to the client floor (``llama_bdd.client``).
"""

from __future__ import annotations

import concurrent.futures
import os
import time
from typing import Any, Callable

from llama_bdd.client import cache as cache_client
from llama_bdd.client import completion as completion_client
from llama_bdd.client import tokenize as tokenize_client
from llama_bdd.client.answers import Completion, OaiCompletion
from llama_bdd.client.cache import NamedPrompt
from llama_bdd.client.checks import expect
from llama_bdd.client.model_facts import ModelFacts, read_model_facts
from llama_bdd.harness import provision
from llama_bdd.harness.models import model_search_dirs, resolve_model_file
from llama_bdd.harness.http import DEFAULT_TIMEOUT, Exchange, async_request
from llama_bdd.harness.timing import timed

from .lifecycle import skip_scenario, suite_of
from .state import CacheState, PendingRequest
from .step import state_of

GATHER_TIMEOUT = 300.0


# ----------------------------------------------------------------------------------------------
# the request being built, and what came back
# ----------------------------------------------------------------------------------------------

def pop_prompt(context: Any, kind: str = "prompt") -> str:
    """The last queued prompt, taken off the queue (``kind`` names the step that queues one)."""
    prompts = state_of(context).request.prompts
    expect(bool(prompts), f"no {kind} queued: add 'Given a {kind} ...' first")
    return prompts.pop()


def queued_prompts(context: Any) -> list[str]:
    """Every queued prompt, oldest first, taken off the queue."""
    state = state_of(context)
    prompts, state.request.prompts = list(reversed(state.request.prompts)), []
    expect(bool(prompts), "no prompt queued: add 'Given a prompt ...' steps first")
    return prompts


def last_completion(context: Any) -> Completion:
    """The most recent result, left in place (``N tokens are predicted`` is the step that consumes one)."""
    completions = state_of(context).results.completions
    expect(bool(completions), "no completion result to check: send a request first")
    return completions[-1]


def last_oai_result(context: Any) -> OaiCompletion:
    result = last_completion(context)
    expect(isinstance(result, OaiCompletion), "this check needs an OpenAI-compatible answer (chat or /v1/completions)",
           result.exchange)
    return result


def last_exchange(context: Any, hint: str = "") -> Exchange:
    """The answer the checking steps look at; a failure naming ``hint`` (the step to add) when none came yet."""
    exchange = state_of(context).results.last
    expect(exchange is not None, "no request was sent yet" + (f": {hint}" if hint else ""))
    return exchange


def openai_model(context: Any) -> str:
    """The ``model`` the openai client sends (it insists on one): the request's, else the server's alias."""
    state = state_of(context)
    return state.request.model or state.config.model_alias or "llama-bdd"


def record(context: Any, exchange: Exchange) -> Exchange:
    """Keep an exchange made outside the scenario's HTTP client (openai client, aiohttp) as the last answer."""
    results = state_of(context).results
    results.background.append(exchange)
    results.last = exchange
    return exchange


# ----------------------------------------------------------------------------------------------
# sending through aiohttp on the suite's loop: waited for, or in the background
# ----------------------------------------------------------------------------------------------

def send_raw(context: Any, path: str, payload: Any, headers: dict[str, str]) -> Exchange:
    """One request through aiohttp on the suite's event loop, waited for (bounded)."""
    state = state_of(context)
    future = suite_of(context).loop.submit(async_request("POST", state.client().base_url + path, payload,
                                                         headers=headers, timeout=DEFAULT_TIMEOUT))
    try:
        exchange = future.result(timeout=DEFAULT_TIMEOUT + 10)
    except concurrent.futures.TimeoutError:
        future.cancel()
        raise AssertionError(f"POST {path} got no answer within {DEFAULT_TIMEOUT + 10:.0f}s") from None
    return record(context, exchange)


def send_in_background(context: Any, path: str, payload: Any, headers: dict[str, str],
                       to_result: Callable[[Exchange], Any]) -> None:
    state = state_of(context)
    url = state.client().base_url + path
    future = suite_of(context).loop.submit(async_request("POST", url, payload, headers=headers))
    state.results.pending.append(PendingRequest(future=future, describe=f"POST {path}", to_result=to_result))


def gather_results(context: Any, timeout: float = GATHER_TIMEOUT) -> list[Any]:
    """Wait for every background request (bounded) and convert each answer; they are then no longer pending."""
    state = state_of(context)
    deadline = time.monotonic() + timeout
    exchanges = []
    for request in list(state.results.pending):
        try:
            with timed("http"):
                exchange = request.future.result(timeout=max(0.1, deadline - time.monotonic()))
        except concurrent.futures.TimeoutError:
            # left pending: the end of the scenario cancels it before the server is stopped
            raise AssertionError(f"{request.describe} did not finish within {timeout:.0f}s") from None
        state.results.pending.remove(request)
        state.results.background.append(exchange)
        exchanges.append((request, exchange))
    return [request.to_result(exchange) for request, exchange in exchanges]


# ----------------------------------------------------------------------------------------------
# token counts, with the scenario's server and API key
# ----------------------------------------------------------------------------------------------

def tokenize(context: Any, content: Any, add_special: bool = True) -> list[int]:
    """The server's tokens for ``content`` (a text, or a list mixing texts and token ids), tokenized as a
    completion prompt is when ``add_special`` (BOS if the model has one); sent with the scenario's API key."""
    state = state_of(context)
    return tokenize_client.tokenize(state.client(), content, add_special, headers=state.request.auth_headers())


def detokenize(context: Any, tokens: list[int]) -> str:
    return tokenize_client.detokenize(state_of(context).client(), tokens)


def text_of_token_count(context: Any, n_tokens: int, filler: str) -> str:
    """A text that, as a completion prompt, is exactly ``n_tokens`` tokens (see the client's function)."""
    state = state_of(context)
    return tokenize_client.text_of_token_count(state.client(), n_tokens, filler, headers=state.request.auth_headers())


def prompt_tokens(context: Any, prompt: Any) -> list[int]:
    """The tokens the server makes of a prompt: a string, token ids, a mixed list or a ``prompt_string`` object."""
    state = state_of(context)
    return completion_client.prompt_tokens(state.client(), prompt, headers=state.request.auth_headers())


# ----------------------------------------------------------------------------------------------
# named prompts (RAM cache, slot save, disk cache)
# ----------------------------------------------------------------------------------------------

def named_prompt(context: Any, name: str) -> NamedPrompt:
    prompts = state_of(context).part(CacheState).prompts
    expect(name in prompts, f"no prompt named {name}: define it first ('Given prompt {name} is \"...\"'); "
                            f"defined: {', '.join(sorted(prompts)) or 'none'}")
    return prompts[name]


def prompt_token_count(context: Any, name: str) -> int:
    """The prompt's length in tokens, from its first evaluation (``prompt_n`` + ``cache_n``)."""
    counts = state_of(context).part(CacheState).token_counts
    expect(name in counts, f"prompt {name} was not evaluated yet: add 'When prompt {name} is evaluated' first")
    return counts[name]


def evaluation_payload(context: Any, prompt: NamedPrompt) -> dict[str, Any]:
    """``/completion`` body that only evaluates the prompt into the slot's KV cache."""
    state = state_of(context)
    return cache_client.evaluation_payload(state.client(), prompt, state.request.fields)


# ----------------------------------------------------------------------------------------------
# the served model's facts, read once per server
# ----------------------------------------------------------------------------------------------

def model_facts(context: Any) -> ModelFacts:
    """What decides model-dependent expectations (BOS, sliding window, sizes), read once per running server."""
    state = state_of(context)
    suite = suite_of(context)
    key = state.client().base_url
    if key not in suite.model_facts:
        suite.model_facts[key] = read_model_facts(state.client(), state.request.auth_headers(),
                                                  provision.cache_root() / "model-metadata",
                                                  swa_full="--swa-full" in state.config.options)
    return suite.model_facts[key]


def serve_model_from_env(context: Any, variable: str, missing: str) -> bool:
    """Serve the model an environment variable names (a path, or a file in the models directories); when it
    names none, skip the scenario with ``missing`` as the reason and answer False."""
    name = os.environ.get(variable, "").strip()
    if not name:
        skip_scenario(context, missing)
        return False
    state_of(context).config.model_file = resolve_model_file(name, model_search_dirs(suite_of(context).model_dirs()))
    return True
