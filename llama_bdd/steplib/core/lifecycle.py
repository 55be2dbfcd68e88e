"""Starting and stopping the scenario's server (or attaching to an external one), and skipping with a reason."""

from __future__ import annotations

import concurrent.futures
import hashlib
from typing import Any

import requests

from llama_bdd.harness.http import HttpClient, loopback_session
from llama_bdd.harness.launch import passed_flags
from llama_bdd.harness.process import launch_server, plan_launch

from .step import skip_scenario, state_of, suite_of
from .suite import Suite

CANCEL_TIMEOUT = 5.0


def start_server(context: Any) -> bool:
    """Start (or attach to) the server the scenario configured; False when the scenario was skipped."""
    state = state_of(context)
    suite = suite_of(context)
    if state.server is not None and state.server.is_running():
        raise AssertionError("A server is already running in this scenario; stop it before starting another.")
    if suite.external_url:
        return _attach_external(context)
    config = state.config
    if config.model_file is None and not config.without_model:
        config.model_file = suite.default_model
    if suite.debug:
        config.verbose = True
    plan = plan_launch(suite.binary, config, suite.capabilities, suite.user_args, port=0,
                       extra_flags=suite.injected_flags())
    if plan.unsupported:
        skip_scenario(context, f"llama-server {suite.capabilities.version} at {suite.binary} does not support "
                               f"{', '.join(plan.unsupported)} (not listed in its --help)")
        return False
    conflicts = user_overrides(config, suite)
    if conflicts:
        skip_scenario(context, f"the user arguments set {', '.join(conflicts)}, which this scenario configures "
                               f"itself; its checks would not hold (drop them from LLAMA_SERVER_ARGS/server_args)")
        return False
    key = (str(suite.binary), config.identity(), tuple(suite.user_args))
    state.config_digest = hashlib.sha256(repr(key).encode()).hexdigest()[:12]
    # only a scenario's first server is shared: a restart means the scenario cares about server state
    shareable = suite.reuse_servers and not state.fresh_server and state.server is None
    if shareable:
        reused = suite.pool.acquire(key, headers=_probe_headers(config))
        if reused is not None:
            state.server, state.pool_key = reused, key
            state.notes.append(f"(this scenario reused a running server, pid {reused.pid}; "
                               f"tag it @fresh_server to get its own)")
            _connect(state, suite.reachable_url(reused.base_url))
            return True
    state.server_starts += 1
    log_path = suite.new_server_log()
    state.server_logs.append(log_path)
    state.server = launch_server(suite.binary, config, suite.capabilities, suite.user_args, log_path,
                                 extra_flags=suite.injected_flags(), timeout=suite.start_timeout)
    state.pool_key = key if shareable else None
    _connect(state, suite.reachable_url(state.server.base_url))
    return True


# flags the user may set for every server without changing what a scenario checks
USER_MAY_SET = frozenset({"--model"})


def user_overrides(config: Any, suite: Suite) -> list[str]:
    """Flags this scenario sets that the user arguments also set (the user's value would win)."""
    capabilities = suite.capabilities
    user = passed_flags(suite.user_args, capabilities)
    wanted = {capabilities.canonical_flag(flag.name) for flag in config.flags() if flag.required}
    return sorted((wanted & user) - USER_MAY_SET)


def _probe_headers(config: Any) -> dict[str, str]:
    return {"Authorization": f"Bearer {config.api_keys[0]}"} if config.api_keys else {}


def release_server(context: Any, scenario_failed: bool) -> None:
    """End of scenario: cancel what still runs, hand a shareable server to the pool, stop any other.

    Requests still running are cancelled first: llama-server waits for open connections before it exits
    on SIGTERM, so a stop with a request in flight would last until the request ends.
    """
    state = state_of(context)
    running = [pending.future for pending in state.results.pending if not pending.future.done()]
    for future in running:
        future.cancel()
    if running:
        concurrent.futures.wait(running, timeout=CANCEL_TIMEOUT)
    watching = [watch for watch in state.results.watches if not watch.future.done()]
    for watch in watching:
        watch.stop(CANCEL_TIMEOUT)
    running += [watch.future for watch in watching]
    server = state.server
    if server is None:
        return
    if state.pool_key is not None and not scenario_failed and not running and server.is_running():
        suite_of(context).pool.release(state.pool_key, server)
    else:
        server.stop()


def _connect(state: Any, base_url: str) -> None:
    if state.http is not None:
        state.http.close()
    history = state.http.history if state.http is not None else []
    state.base_url = base_url
    state.http = HttpClient(base_url)
    state.http.history = history  # keep what the scenario sent before a restart


def _attach_external(context: Any) -> bool:
    state = state_of(context)
    suite = suite_of(context)
    unverifiable = external_mismatch(state.config, suite.external_url)
    if unverifiable:
        skip_scenario(context, f"external server {suite.external_url}: {unverifiable}")
        return False
    _connect(state, suite.external_url)
    return True


def external_mismatch(config: Any, base_url: str) -> str | None:
    """Why an external server cannot stand in for ``config`` (None when it can)."""
    with loopback_session() as session:
        try:
            props = session.get(f"{base_url}/props", timeout=10)
            health = session.get(f"{base_url}/health", timeout=10)
            metrics = session.get(f"{base_url}/metrics", timeout=10) if config.metrics else None
            info = props.json() if props.status_code == 200 else None
        except (requests.RequestException, ValueError) as error:
            return f"not reachable or not answering JSON ({type(error).__name__}: {error})"
    if health.status_code != 200:
        return f"not healthy (GET /health answered {health.status_code})"
    if not isinstance(info, dict):
        return f"GET /props answered {props.status_code}, so its configuration cannot be checked"
    if config.n_slots is not None and info.get("total_slots") != config.n_slots:
        return f"the scenario needs {config.n_slots} slots, the server has {info.get('total_slots')}"
    if metrics is not None and metrics.status_code != 200:
        return "the scenario needs --metrics, the server does not expose /metrics"
    unknowable = [name for name, wanted in (
        ("--api-key", config.api_keys), ("--n-predict", config.n_predict is not None),
        ("--embedding", config.embeddings), ("extra arguments", config.extra_args or config.options),
    ) if wanted]
    if unknowable:
        return f"the scenario needs {', '.join(unknowable)}, which cannot be confirmed on a running server"
    return None


def stop_server(context: Any, graceful: bool = True) -> int | None:
    """Stop the scenario's own server (external servers are never stopped)."""
    state = state_of(context)
    if state.server is None:
        return None
    state.pool_key = None  # a server stopped on purpose is not handed on
    if graceful:
        return state.server.stop()
    state.server.kill()
    return state.server.exit_code
