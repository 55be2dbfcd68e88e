"""The step core: what every step module stands on, and no step phrase of its own.

- ``step``: the decorator that registers a phrase and attaches the failure report (request, response,
  server command, log tail) to whatever fails inside it;
- ``state``: the typed state of one scenario (``ScenarioState``), made in ``before_scenario``;
- ``suite``, ``lifecycle``, ``hooks``, ``reports``: the run, the server of each scenario, the behave hooks;
- ``scenario``: what several step domains do with the scenario's state (queued prompts, results, sending);
- ``types``: the placeholder types that keep phrases from matching each other's patterns.

Step modules (``llama_bdd.steplib.<domain>``) import this package, the client floor and the harness, never
each other.
"""

from llama_bdd.client.checks import expect, expect_equal, expect_status

from . import types  # noqa: F401 - the placeholder types exist before any step pattern is compiled
from .lifecycle import skip_scenario, suite_of
from .state import ScenarioState
from .step import build_known_from, failure_report, server_version, state_of, step

__all__ = ["build_known_from", "expect", "expect_equal", "expect_status", "failure_report", "server_version",
           "skip_scenario", "state_of", "step", "suite_of", "ScenarioState"]
