"""The environment hooks: run-wide setup, a fresh state per scenario, and cleanup that always happens.

``features/environment.py`` only wires these functions to behave.
"""

from __future__ import annotations

import shutil
import signal
import sys
from typing import Any

from llama_bdd.harness.capabilities import missing_requirement
from llama_bdd.harness.errors import HarnessError
from llama_bdd.harness.process import stop_all_servers

from . import lifecycle
from .state import ScenarioState
from .suite import Suite

REQUIRES_PREFIX = "requires."
MODEL_PREFIX = "model."


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
    context.state = ScenarioState(name=scenario.name, workdir=suite.new_scenario_dir(scenario.name))
    reason = skip_reason(suite, scenario.effective_tags)
    if reason:
        lifecycle.skip_scenario(context, reason)


def skip_reason(suite: Suite, tags: Any) -> str | None:
    """Why the scenario's capability or model tags rule it out on this run (None if they don't)."""
    for tag in sorted(tags):
        if tag.startswith(REQUIRES_PREFIX):
            reason = missing_requirement(suite.capabilities, tag[len(REQUIRES_PREFIX):])
            if reason:
                return reason
        elif tag.startswith(MODEL_PREFIX):
            model = tag[len(MODEL_PREFIX):]
            if model not in suite.model_tags:
                known = ", ".join(sorted(suite.model_tags)) or "none"
                return f"@{tag}: written for that model; this run's model satisfies: {known}"
    return None


def after_scenario(context: Any, scenario: Any) -> None:
    state: ScenarioState | None = getattr(context, "state", None)
    if state is None:
        return
    try:
        for pending in state.results.pending:
            pending.future.cancel()
        lifecycle.stop_server(context)
        if state.http is not None:
            state.http.close()
    finally:
        keep = context.suite.preserve == "all" or (
            context.suite.preserve == "failed" and scenario.status.has_failed())
        if keep:
            print(f"llama-bdd: kept {state.workdir} of scenario '{scenario.name}'", file=sys.__stderr__)
        else:
            shutil.rmtree(state.workdir, ignore_errors=True)
        context.state = None


def after_all(context: Any) -> None:
    stop_all_servers()
    suite: Suite | None = getattr(context, "suite", None)
    if suite is None:
        return
    suite.loop.close()
    if not any(suite.workdir.iterdir()):
        shutil.rmtree(suite.workdir, ignore_errors=True)
    if lifecycle.SKIPPED:
        print(f"\nllama-bdd: {len(lifecycle.SKIPPED)} scenario(s) skipped:", file=sys.__stderr__)
        for line in lifecycle.SKIPPED:
            print(f"  - {line}", file=sys.__stderr__)
