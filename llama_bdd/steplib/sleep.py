"""Sleeping on idle (``--sleep-idle-seconds``); what a sleeping server answers is in ``llama_bdd.client.sleep``.

Waking requests and their answers use the completion steps; counters across a sleep the metrics steps.
"""

from __future__ import annotations

from typing import Any

from llama_bdd.client import sleep as sleep_client

from .core import expect, state_of, step

FALL_ASLEEP_TIMEOUT_MARGIN = 10  # seconds, on top of the idle time asked for


@step("the server sleeps after {seconds:d} seconds of idleness", "the server sleeps after {seconds:d} second of idleness")
def step_sleep_idle_seconds(context: Any, seconds: int) -> None:
    """``--sleep-idle-seconds N``: N seconds without a task and the server unloads its model.

        Given the server sleeps after 1 second of idleness
    """
    state_of(context).config.options["--sleep-idle-seconds"] = str(seconds)


@step("the server falls asleep within {seconds:d} seconds")
def step_falls_asleep(context: Any, seconds: int) -> None:
    """Poll ``/props`` (``/props`` is no task: it does not keep the server awake) until ``is_sleeping`` is true.

        Then the server falls asleep within 10 seconds
    """
    state = state_of(context)
    sleep_client.wait_until_asleep(state.client(), float(seconds), state.request.auth_headers())


@step("/props says the server is {condition:w}")
def step_props_says(context: Any, condition: str) -> None:
    """One read of ``/props``: ``is_sleeping`` true (``asleep``) or false (``awake``).

        Then /props says the server is awake
    """
    expect(condition in ("asleep", "awake"), f"'{condition}': say asleep or awake")
    state = state_of(context)
    sleep_client.expect_sleeping(state.client(), condition == "asleep", state.request.auth_headers())


@step("{path:UrlPath} answers while the server sleeps, without waking it")
def step_answers_while_asleep(context: Any, path: str) -> None:
    """``GET path`` answers 200 what it answers awake (``/health`` ok, ``/props`` is_sleeping true, ``/models``
    the model, ``/metrics`` the metrics), and ``/props`` still says the server sleeps afterwards.

        Then /models answers while the server sleeps, without waking it
    """
    state = state_of(context)
    state.results.last = sleep_client.expect_answer_while_asleep(state.client(), path, state.request.auth_headers())
