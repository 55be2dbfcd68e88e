"""Steps that configure, start, stop and watch the server: health, readiness, slots.

The phrases of the original llama.cpp behave suite are kept word for word.
"""

from __future__ import annotations

import concurrent.futures
import os
from typing import Any

from llama_bdd.client import slots as slots_client
from llama_bdd.harness.launch import flatten_params
from llama_bdd.harness.models import model_search_dirs, resolve_model_file
from llama_bdd.harness.remote_models import RemoteModel, missing_reason
from llama_bdd.harness.timing import timed

from .core import expect, lifecycle, state_of, step

REQUESTS_DONE_TIMEOUT = 300.0


# ----------------------------------------------------------------------------------------------
# configuration
# ----------------------------------------------------------------------------------------------

@step("a server listening on {server_fqdn}:{server_port}")
def step_server_listening_on(context: Any, server_fqdn: str, server_port: str) -> None:
    """Begin a server configuration (the original suite's first Background step).

    The server always binds 127.0.0.1 on a free port, whatever host and port the step names, so runs
    never collide; set ``PORT`` to pin the port.

        Given a server listening on localhost:8080
    """
    state = state_of(context)
    state.config = type(state.config)()
    state.request = type(state.request)()
    state.results = type(state.results)()
    if not lifecycle.suite_of(context).external_url:
        state.notes.append(f"(the step asked for {server_fqdn}:{server_port}; the harness binds 127.0.0.1 on "
                           f"{os.environ.get('PORT') or 'a free port'})")


@step("a model file {model_file:ModelFile}")
def step_model_file(context: Any, model_file: str) -> None:
    """Serve this model: a path, or a file name looked up in the models directories.

    ``default`` names the embedded default model (SmolLM2-135M-Instruct Q4_1). After ``a model file X from
    HF repo Y`` the name is where the original suite downloaded X to: served when present, else X is.

        Given a model file default
        Given a model file /models/tinyllama.gguf
    """
    suite = lifecycle.suite_of(context)
    state = state_of(context)
    if model_file == "default" or (suite.default_model and model_file == suite.default_model.name):
        state.config.model_file = suite.default_model
        return
    remote = state.part(RemoteModel)
    if remote.named:
        dirs = model_search_dirs(suite.model_dirs())
        state.config.model_file = remote.local_copy(model_file, dirs)
        if state.config.model_file is None:
            lifecycle.skip_scenario(context, missing_reason([model_file, remote.hf_file], dirs))
        return
    state.config.model_file = resolve_model_file(model_file, model_search_dirs(suite.model_dirs()))


@step("a model alias {model_alias}")
def step_model_alias(context: Any, model_alias: str) -> None:
    """Serve the model under this name (``--alias``); OpenAI responses echo it as ``model``.

        Given a model alias tinyllama-2
    """
    state_of(context).config.model_alias = model_alias


@step("{seed:d} as server seed")
def step_server_seed(context: Any, seed: int) -> None:
    """Seed the server's sampler (``--seed``); requests also send this seed.

        Given 42 as server seed
    """
    state = state_of(context)
    state.config.seed = seed
    state.request.seed = seed


@step("{n_ctx:d} KV cache size")
def step_kv_cache_size(context: Any, n_ctx: int) -> None:
    """Total context of the server, shared by all slots (``--ctx-size``).

        Given 256 KV cache size
    """
    state_of(context).config.n_ctx = n_ctx


@step("{n_slots:d} slots")
def step_slots(context: Any, n_slots: int) -> None:
    """Number of slots, i.e. requests processed in parallel (``--parallel``).

        Given 2 slots
    """
    state_of(context).config.n_slots = n_slots


@step("{n_predict:d} server max tokens to predict")
def step_server_max_tokens(context: Any, n_predict: int) -> None:
    """Server-side cap on generated tokens (``--n-predict``).

        Given 32 server max tokens to predict
    """
    state_of(context).config.n_predict = n_predict


@step("continuous batching")
def step_continuous_batching(context: Any) -> None:
    """Enable continuous batching (``--cont-batching``; today's servers have it on by default).

        Given continuous batching
    """
    state_of(context).config.continuous_batching = True


@step("embeddings extraction")
def step_embeddings_extraction(context: Any) -> None:
    """Enable the embeddings endpoints (``--embedding``).

        Given embeddings extraction
    """
    state_of(context).config.embeddings = True


@step("prometheus compatible metrics exposed")
def step_metrics_exposed(context: Any) -> None:
    """Expose ``/metrics`` (``--metrics``).

        Given prometheus compatible metrics exposed
    """
    state_of(context).config.metrics = True


@step("a server api key {server_api_key}")
def step_server_api_key(context: Any, server_api_key: str) -> None:
    """Protect the server with an API key (``--api-key``); repeat the step for several keys.

        Given a server api key llama.cpp
    """
    state_of(context).config.api_keys.append(server_api_key)


@step("the server option {flag:ServerFlag} set to {value}")
def step_server_option(context: Any, flag: str, value: str) -> None:
    """Pass any llama-server flag with a value; skipped with a reason if the binary lacks the flag.

        Given the server option --pooling set to mean
    """
    state_of(context).config.options[flag] = value


@step("the server option {flag:ServerFlag}")
def step_server_switch(context: Any, flag: str) -> None:
    """Pass any llama-server switch (a flag without a value).

        Given the server option --no-context-shift
    """
    state_of(context).config.options[flag] = None


@step("the server arguments {arguments}")
def step_server_arguments(context: Any, arguments: str) -> None:
    """Append raw arguments, flattened as user parameters are (``"--ctx-size 1024"`` -> two tokens).

        Given the server arguments --ctx-size 512 --batch-size 64
    """
    state_of(context).config.extra_args.extend(flatten_params([arguments]))


# ----------------------------------------------------------------------------------------------
# lifecycle
# ----------------------------------------------------------------------------------------------

@step("the server is starting")
def step_server_starting(context: Any) -> None:
    """Start the configured server and wait until ``GET /health`` answers 200.

    Fails at once, with the exit code and the log tail, if the process dies while starting.

        Then the server is starting
    """
    lifecycle.start_server(context)


@step("the server is stopped")
def step_server_stopped(context: Any) -> None:
    """Stop the server gracefully (SIGTERM, bounded wait) and check it exited cleanly.

        When the server is stopped
    """
    if lifecycle.suite_of(context).external_url:
        lifecycle.skip_scenario(context, "an external server cannot be stopped by the suite")
        return
    code = lifecycle.stop_server(context)
    expect(code == 0, f"llama-server should exit with code 0 on SIGTERM, exited with {code}")


@step("the server is restarted")
def step_server_restarted(context: Any) -> None:
    """Stop the server gracefully, then start it again with the same configuration.

        When the server is restarted
    """
    if lifecycle.suite_of(context).external_url:
        lifecycle.skip_scenario(context, "an external server cannot be restarted by the suite")
        return
    lifecycle.stop_server(context)
    lifecycle.start_server(context)


@step("the server is {expecting_status:ServerState}")
def step_server_status(context: Any, expecting_status: str) -> None:
    """Wait (bounded) for a server state: healthy, ready, idle or busy.

    healthy: ``/health`` answers 200 ``{"status": "ok"}``. ready / idle: healthy and every slot idle.
    busy: every slot processing at once (``/slots?fail_on_no_slot=1`` answers 503); fails if the
    running requests finish before that is seen.

        Then the server is healthy
        Then the server is busy
        Then the server is idle
    """
    state = state_of(context)
    with timed("http"):
        if expecting_status in ("healthy", "ready", "idle"):
            slots_client.wait_until_health_ok(state.client())
        if expecting_status in ("ready", "idle"):
            _wait_for_running_requests(context)
            slots_client.wait_for_slots(state.client(), expected_slot_count(context), processing=False)
        elif expecting_status == "busy":
            pending = state.results.pending
            slots_client.wait_for_slots(state.client(), expected_slot_count(context), processing=True,
                                        requests_done=lambda: bool(pending) and all(p.future.done() for p in pending))


def expected_slot_count(context: Any) -> int:
    """The slots the scenario asked for, else what the server reports in ``/props``."""
    state = state_of(context)
    if state.config.n_slots is not None:
        return state.config.n_slots
    return slots_client.total_slots(state.client())


def _wait_for_running_requests(context: Any) -> None:
    """Idle can only come once the running requests are done: give them their own (longer) bound."""
    state = state_of(context)
    if not state.results.pending:
        return
    running = [pending.future for pending in state.results.pending]
    _, still_running = concurrent.futures.wait(running, timeout=REQUESTS_DONE_TIMEOUT)
    expect(not still_running, f"{len(still_running)} of the running requests did not finish within "
                              f"{REQUESTS_DONE_TIMEOUT:.0f}s, so the server cannot become idle")
    failed = [f.result() for f in running
              if not f.cancelled() and f.exception() is None and getattr(f.result(), "error", None)]
    if failed:
        state.notes.append(f"({len(failed)} running request(s) got no answer: {failed[0].error})")


@step("all slots are {expected_slot_status_string}")
def step_all_slots_are(context: Any, expected_slot_status_string: str) -> None:
    """Read ``/slots`` once: every configured slot is idle (or busy) right now.

        Then all slots are idle
    """
    wanted = {"idle": False, "busy": True}.get(expected_slot_status_string)
    expect(wanted is not None, f"unknown slot state '{expected_slot_status_string}': use idle or busy")
    slots_client.expect_slots_state(state_of(context).client(), expected_slot_count(context), wanted)


@step("the server reports {n_slots:d} slots")
def step_server_reports_slots(context: Any, n_slots: int) -> None:
    """``/slots`` lists exactly N slots with ids 0..N-1 and ``/props`` says ``total_slots`` N.

        Then the server reports 3 slots
    """
    slots_client.expect_slot_count(state_of(context).client(), n_slots)
