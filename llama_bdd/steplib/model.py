"""Premises about the served model: a scenario whose expectation holds only for some models says so.

Each premise is read from the server (``llama_bdd.client.model_facts``), never from the model's name: when
it does not hold, the scenario is skipped with the reason, naming the property and what follows from it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from llama_bdd.harness import provision
from llama_bdd.harness.gguf_meta import read_model_metadata

from .core import lifecycle, skip_scenario, state_of, step, suite_of
from .core.scenario import model_facts

SWA_FULL = "--swa-full"


@step("the model adds no BOS token")
def step_model_adds_no_bos(context: Any) -> None:
    """Premise: prompts are tokenized without a BOS token in front (``/tokenize`` with ``add_special``).

    With BOS an "empty" prompt or input is one token (the server generates from it, embeds it), and the
    first token of every text is the same, so CLS pooling gives one vector for all.

        Given the model adds no BOS token
    """
    facts = model_facts(context)
    if facts.adds_bos:
        skip_scenario(context, f"premise not met: {facts.describe()} adds the BOS token {facts.bos_token!r} to "
                               f"every prompt, so an empty prompt is one token and every text starts alike")


@step("the model adds a BOS token")
def step_model_adds_bos(context: Any) -> None:
    """Premise: every prompt starts with the model's BOS token, so an empty prompt is one token long.

        Given the model adds a BOS token
    """
    facts = model_facts(context)
    if not facts.adds_bos:
        skip_scenario(context, f"premise not met: {facts.describe()} adds no BOS token, so an empty prompt has "
                               f"no token at all")


@step("the model uses no sliding-window attention")
def step_model_uses_no_sliding_window(context: Any) -> None:
    """Premise: every layer attends to the whole context (no sliding window, or the server runs ``--swa-full``).

    With sliding-window attention the server keeps a prompt's KV cache only for the window, so a prompt
    taken from a cache is processed again beyond its last token, by design.

        Given the model uses no sliding-window attention
    """
    facts = model_facts(context)
    if not facts.sliding_window_known:
        skip_scenario(context, "premise unknown: the model file /props names is not readable here, so whether "
                               "the model uses sliding-window attention cannot be told")
    elif facts.sliding_window:
        skip_scenario(context, f"premise not met: {facts.describe()} uses sliding-window attention over "
                               f"{facts.sliding_window} tokens, so a restored prompt is re-processed beyond its "
                               f"last token (by design of the server's SWA cache)")


@step("a sliding-window model keeps its whole context")
def step_sliding_window_kept_whole(context: Any) -> None:
    """``--swa-full`` when the model file uses sliding-window attention (read from its GGUF metadata), so the
    server keeps every token's KV state and reuses a prompt as for any model; nothing for a model without a
    window. A server already running (started by the Background) is restarted with it, and only then.
    ``the model uses no sliding-window attention`` then holds.

        Given a sliding-window model keeps its whole context
    """
    state, suite = state_of(context), suite_of(context)
    model = Path(state.config.model_file or suite.default_model)
    metadata = read_model_metadata(model, provision.cache_root() / "model-metadata") if model.is_file() else None
    if metadata is None or not metadata.sliding_window or SWA_FULL in state.config.options:
        return
    state.config.options[SWA_FULL] = None
    if state.server is not None and state.server.is_running() and not suite.external_url:
        lifecycle.stop_server(context)
        lifecycle.start_server(context)
