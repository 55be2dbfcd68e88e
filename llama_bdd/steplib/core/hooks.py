"""The environment hooks: run-wide setup, a fresh state per scenario, and cleanup that always happens.

``features/environment.py`` only wires these functions to behave.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path
from typing import Any

from behave import step_registry

from llama_bdd.harness.capabilities import missing_requirement
from llama_bdd.harness import timing
from llama_bdd.harness.errors import HarnessError
from llama_bdd.harness.process import stop_all_servers

from . import lifecycle
from .reports import annotate_junit_skips
from .state import ScenarioState
from .suite import Suite

FRESH_SERVER_TAG = "fresh_server"
KNOWN_BUG_TAG = "known_bug"
REQUIRES_PREFIX = "requires."
MODEL_PREFIX = "model."
BUILD_PREFIX = "build.from."  # @build.from.11434: an expectation only builds from b11434 on are known to meet


def _terminate_as_interrupt(signum: int, frame: Any) -> None:
    # CI stops a run with SIGTERM: behave handles KeyboardInterrupt by aborting cleanly, hooks included.
    raise KeyboardInterrupt(f"signal {signum}")


def before_all(context: Any) -> None:
    signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    try:
        context.suite = Suite.from_settings(context.config.userdata)
    except HarnessError as error:
        print(f"\nllama-bdd cannot start: {error}\n", file=sys.__stderr__, flush=True)
        raise
    print(f"llama-bdd: {context.suite.describe()}", file=sys.__stderr__, flush=True)


def before_scenario(context: Any, scenario: Any) -> None:
    suite: Suite = context.suite
    context.state = ScenarioState(name=scenario.name, workdir=suite.new_scenario_dir(scenario.name),
                                  fresh_server=needs_fresh_server(scenario))
    reason = skip_reason(suite, scenario.effective_tags)
    if reason is None and KNOWN_BUG_TAG in scenario.effective_tags and not suite.run_known_bugs:
        reason = (f"@{KNOWN_BUG_TAG}: this scenario documents a server bug, described above it in "
                  f"{scenario.location}; run it with -D known_bugs=run")
    if reason:
        lifecycle.skip_scenario(context, reason)


def needs_fresh_server(scenario: Any) -> bool:
    """Tagged @fresh_server, or uses a step whose outcome depends on the server's earlier work."""
    if FRESH_SERVER_TAG in scenario.effective_tags:
        return True
    for scenario_step in scenario.all_steps:
        match = step_registry.registry.find_match(scenario_step)
        if match is not None and getattr(match.func, "needs_fresh_server", False):
            return True
    return False


def skip_reason(suite: Suite, tags: Any) -> str | None:
    """Why the scenario's capability or model tags rule it out on this run (None if they don't)."""
    for tag in sorted(tags):
        if tag.startswith(REQUIRES_PREFIX):
            reason = missing_requirement(suite.capabilities, tag[len(REQUIRES_PREFIX):])
            if reason:
                return reason
        elif tag.startswith(BUILD_PREFIX):
            reason = build_reason(suite, int(tag[len(BUILD_PREFIX):]))
            if reason:
                return reason
        elif tag.startswith(MODEL_PREFIX):
            model = tag[len(MODEL_PREFIX):]
            if model not in suite.model_tags:
                known = ", ".join(f"@{MODEL_PREFIX}{name}" for name in sorted(suite.model_tags)) or "no model tag"
                return f"@{tag}: an expectation on what that model writes; this run's model has {known}"
    return None


def build_reason(suite: Suite, build: int) -> str | None:
    """Why an expectation of builds from ``build`` on does not apply here (None when it does)."""
    known = suite.capabilities.build_at_least(build) if suite.capabilities else None
    if known:
        return None
    if known is None:
        return (f"@build.from.{build}: builds from b{build} on are known to behave this way; this server's build "
                f"number is unknown, so this build-specific expectation is not applied to it")
    return f"@build.from.{build}: builds from b{build} on behave this way; this server is {suite.capabilities.version}"


def after_scenario(context: Any, scenario: Any) -> None:
    state: ScenarioState | None = getattr(context, "state", None)
    if state is None:
        return
    failed = scenario.status.has_failed()
    context.suite.scenario_records.append({
        "feature": scenario.feature.filename, "scenario": scenario.name, "status": scenario.status.name,
        "seconds": round(time.monotonic() - state.started_at, 3), "server_starts": state.server_starts,
        "config": state.config_digest, "fresh_server": state.fresh_server})
    keep = context.suite.preserve == "all" or (context.suite.preserve == "failed" and failed)
    try:
        if keep:
            for number, log in enumerate(state.server_logs, start=1):
                if log.exists():
                    shutil.copy(log, state.workdir / f"server-{number}.log")
        lifecycle.release_server(context, scenario_failed=failed)
        if state.http is not None:
            state.http.close()
    finally:
        if keep:
            print(f"llama-bdd: kept {state.workdir} of scenario '{scenario.name}'", file=sys.__stderr__)
        else:
            shutil.rmtree(state.workdir, ignore_errors=True)
        context.state = None


def after_all(context: Any) -> None:
    suite: Suite | None = getattr(context, "suite", None)
    if suite is not None:
        suite.pool.close()
    stop_all_servers()
    if suite is None:
        return
    for line in suite.close_fault_proxies():
        print(f"llama-bdd: {line}", file=sys.__stderr__)
    suite.loop.close()
    write_stats(suite)
    shutil.rmtree(suite.workdir / "servers", ignore_errors=True)
    if not any(suite.workdir.iterdir()):
        shutil.rmtree(suite.workdir, ignore_errors=True)
    if context.config.junit:
        annotate_junit_skips(Path(context.config.junit_directory), suite.skips)
    if suite.skips:
        print(f"\nllama-bdd: {len(suite.skips)} scenario(s) skipped:", file=sys.__stderr__)
        for skip in suite.skips:
            print(f"  - {skip.feature} / {skip.scenario}: {skip.reason}", file=sys.__stderr__)


def write_stats(suite: Suite) -> None:
    """With LLAMA_BDD_STATS_FILE set, record where this run's time went (read by the benchmark)."""
    target = os.environ.get("LLAMA_BDD_STATS_FILE")
    if not target:
        return
    stats = {"wall_seconds": round(time.monotonic() - suite.started_at, 3), "timing": timing.totals(),
             "server_starts": suite.server_count, "server_reuses": suite.pool.reuses,
             "scenarios": suite.scenario_records}
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    Path(target).write_text(json.dumps(stats, indent=1))
