"""The step decorator of the library, and the failure report every failing step carries.

``@step`` registers a behave step and wraps it: when the step fails, the error message gets the request
that was sent (as curl), what came back, the server's command line and the tail of its log. So the
console, the JUnit XML and the HTML report all say what happened, not only that something did.
"""

from __future__ import annotations

import functools
import traceback
from typing import Any, Callable

from behave import step as behave_step

from llama_bdd.client.routes import ROUTES_VERIFIED_BUILD, AbsentRoute
from llama_bdd.harness.errors import HarnessError

from .reports import Skip
from .state import ScenarioState
from .suite import Suite

LOG_TAIL_LINES = 30
_REQUEST_MARK = "request:  curl"


def state_of(context: Any) -> ScenarioState:
    state = getattr(context, "state", None)
    if state is None:
        raise AssertionError("No scenario state: steps of this library need its environment hooks "
                             "(features/environment.py must wire llama_bdd.steplib.hooks).")
    return state


def suite_of(context: Any) -> Suite:
    return context.suite


def skip_scenario(context: Any, reason: str) -> None:
    """Skip the rest of the scenario; the reason goes to the run's closing summary and the JUnit XML."""
    scenario = context.scenario
    suite_of(context).skips.append(Skip(scenario.feature.name, scenario.name, reason))
    scenario.skip(reason)


def failure_report(context: Any, message: str) -> str:
    """``message`` followed by the last exchange, the server command and its log tail."""
    state = getattr(context, "state", None)
    if state is None:
        return message
    parts = [message]
    exchanges = state.exchanges()
    if exchanges and _REQUEST_MARK not in message:
        parts.append("---- last HTTP exchange ----\n" + exchanges[-1].describe())
    parts.extend(state.notes)
    if state.server is not None:
        parts.append("---- server ----\ncommand: " + state.server.command.render())
        parts.append(state.server.describe_log(LOG_TAIL_LINES))
    elif state.base_url:
        parts.append(f"---- server ----\nexternal server at {state.base_url} (its log is not available)")
    return "\n".join(parts)


def build_known_from(context: Any, build: int) -> bool | None:
    """Whether the server under test is build ``build`` or later (None: its build is unknown)."""
    capabilities = getattr(suite_of(context), "capabilities", None)
    return capabilities.build_at_least(build) if capabilities is not None else None


def server_version(context: Any) -> str:
    """The server's build as the skip and failure messages name it."""
    capabilities = getattr(suite_of(context), "capabilities", None)
    return capabilities.version if capabilities is not None else "unknown build (an external server)"


def _skip_or_fail_absent_route(context: Any, error: AbsentRoute) -> None:
    """A route newer than the oldest build answered 404: skip with the reason unless this build must have it."""
    if build_known_from(context, ROUTES_VERIFIED_BUILD):
        raise AssertionError(failure_report(context, error.on_a_build_that_has_it(server_version(context)))) from None
    skip_scenario(context, error.reason(server_version(context)))


def step(*patterns: str, fresh_server: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a step under one or more patterns; failures carry the failure report.

    ``fresh_server=True`` marks a step whose outcome depends on what the server did before (exact metric
    counters, slot cache contents, ...): a scenario using it never shares a server with another scenario.
    """

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def run(context: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return function(context, *args, **kwargs)
            except AbsentRoute as error:
                _skip_or_fail_absent_route(context, error)
                return None
            except AssertionError as error:
                raise AssertionError(failure_report(context, str(error))) from None
            except HarnessError as error:
                raise AssertionError(failure_report(context, f"{type(error).__name__}: {error}")) from None
            except Exception:  # noqa: BLE001 - an unexpected error deserves the same report, with its traceback
                raise AssertionError(failure_report(context, traceback.format_exc().rstrip())) from None

        run.needs_fresh_server = fresh_server
        for pattern in patterns:
            behave_step(pattern)(run)
        return function

    return decorate
