"""Router mode: a llama-server without a model of its own, serving the models of a directory or a preset.

What a router answers, and the checks on it, are in ``llama_bdd.client.router``. Requests naming a model
use the request steps (``a model alpha``) and the chat steps; refusals the ``bad_input`` steps.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from llama_bdd.client import router as router_client
from llama_bdd.client.openai_api import chat_payload, raw_headers
from llama_bdd.client.request import RequestDraft
from llama_bdd.harness.http import EventWatch, Exchange
from llama_bdd.harness.launch import passed_flags

from .core import expect, expect_equal, expect_status, skip_scenario, state_of, step, suite_of
from .core.scenario import gather_results, pop_prompt, send_in_background

MODELS_DIR = "router-models"
EVENT_WAIT = 30.0  # seconds for an event to follow the status /models already shows
PRESET_FILE = "router-preset.ini"


@dataclass
class RouterState:
    """What the router steps remember between steps of a scenario."""

    # (model asked for, max_tokens) of each chat sent in the background, in order
    background: list[tuple[str, int | None]] = field(default_factory=list)
    # GET /models/sse, read while the scenario goes on
    events: EventWatch | None = None


def _names(text: str) -> list[str]:
    """``alpha and beta``, ``alpha, beta and gamma`` -> the names."""
    return [name for name in re.split(r"\s*,\s*|\s+and\s+", text.strip()) if name]


def _headers(context: Any) -> dict[str, str]:
    return state_of(context).request.auth_headers()


def _become_router(context: Any) -> bool:
    """No ``--model`` for this server (not even the default); False (scenario skipped) when the user passes one."""
    suite = suite_of(context)
    if "--model" in passed_flags(suite.user_args, suite.capabilities):
        skip_scenario(context, "the user arguments pass --model, and a router has no model of its own "
                               "(drop --model from LLAMA_SERVER_ARGS/server_args for the router scenarios)")
        return False
    config = state_of(context).config
    config.model_file = None
    config.without_model = True
    return True


# ----------------------------------------------------------------------------------------------
# configuration
# ----------------------------------------------------------------------------------------------

@step("a router over a models directory holding {names}")
def step_router_models_dir(context: Any, names: str) -> None:
    """Start the server as a router (no ``--model``) over ``--models-dir``, a directory of this scenario.

    Each name becomes ``NAME.gguf``: the first is the default model, the others the model named by
    ``LLAMA_BDD_ROUTER_SECOND_MODEL`` when set, else the default model again (hard links, not copies).

        Given a router over a models directory holding alpha and beta
    """
    if not _become_router(context):
        return
    state = state_of(context)
    directory = state.cache_dir(MODELS_DIR)
    router_client.populate_models_dir(directory, _names(names), suite_of(context).default_model,
                                      router_client.second_model_from_env())
    state.config.options["--models-dir"] = str(directory)


@step("a router over a models preset:")
def step_router_models_preset(context: Any) -> None:
    """Start the server as a router over ``--models-preset``: the step's text is the INI file.

    ``{default_model}`` in the text stands for the default model's path.

        Given a router over a models preset:
          \"\"\"
          [small]
          model = {default_model}
          ctx-size = 128
          \"\"\"
    """
    expect(context.text is not None, "this step needs the preset as a text block")
    if not _become_router(context):
        return
    state = state_of(context)
    path = state.cache_dir("router") / PRESET_FILE
    path.write_text(router_client.preset_text(context.text, suite_of(context).default_model))
    state.config.options["--models-preset"] = str(path)


@step("the router runs at most {count:d} model at a time", "the router runs at most {count:d} models at a time")
def step_router_models_max(context: Any, count: int) -> None:
    """``--models-max N``: at most N model instances at once; the least recently used idle one makes room.

        Given the router runs at most 1 model at a time
    """
    state_of(context).config.options["--models-max"] = str(count)


@step("the router loads no model on demand")
def step_router_no_autoload(context: Any) -> None:
    """``--no-models-autoload``: a request for a model that is not loaded is refused, not served.

        Given the router loads no model on demand
    """
    state_of(context).config.options["--no-models-autoload"] = None


# ----------------------------------------------------------------------------------------------
# listings, loading and unloading
# ----------------------------------------------------------------------------------------------

@step("the router lists {names} through {path:UrlPath}, each {status:w}")
def step_router_lists(context: Any, names: str, path: str, status: str) -> None:
    """``/models`` or ``/v1/models`` lists exactly these models (validated), each with this ``status.value``.

        Then the router lists alpha and beta through /v1/models, each unloaded
    """
    state = state_of(context)
    router_client.expect_listing(state.client(), path, _names(names), status, _headers(context))


@step("the router lists model {name:w} as {status:w}")
def step_router_lists_model_as(context: Any, name: str, status: str) -> None:
    """One read of ``/models``: this model's ``status.value`` right now.

        Then the router lists model alpha as loaded
    """
    exchange, model = router_client.status_of(state_of(context).client(), name, _headers(context))
    expect_equal(model.value, status, f"status.value of {name} in /models", exchange)


@step("the router loads model {name:w}")
def step_router_loads(context: Any, name: str) -> None:
    """``POST /models/load`` for this model answers ``{"success": true}`` (the load goes on in the background).

        When the router loads model alpha
    """
    state = state_of(context)
    state.results.last = router_client.load(state.client(), name, _headers(context))


@step("the router unloads model {name:w}")
def step_router_unloads(context: Any, name: str) -> None:
    """``POST /models/unload`` for this model answers ``{"success": true}``.

        When the router unloads model alpha
    """
    state = state_of(context)
    state.results.last = router_client.unload(state.client(), name, _headers(context))


@step("the router shows model {name:w} going {statuses}")
def step_router_shows_passage(context: Any, name: str, statuses: str) -> None:
    """Poll ``/models`` (bounded) until the model has the last status: exactly these statuses were seen, in order.

        Then the router shows model alpha going loading, loaded
    """
    expected = _names(statuses)
    seen = router_client.watch_status(state_of(context).client(), name, expected[-1], headers=_headers(context))
    router_client.expect_passage(seen, expected, name)


@step("the router shows model {name:w} {status:w} within {seconds:d} seconds")
def step_router_shows_within(context: Any, name: str, status: str, seconds: int) -> None:
    """Poll ``/models`` until the model has this status; fail after N seconds or when its instance failed.

        Then the router shows model beta loaded within 60 seconds
    """
    router_client.watch_status(state_of(context).client(), name, status, float(seconds), _headers(context))


# ----------------------------------------------------------------------------------------------
# GET /models/sse
# ----------------------------------------------------------------------------------------------

@step("the router's events are watched")
def step_router_events_watched(context: Any) -> None:
    """Open ``GET /models/sse`` (waiting until it is answered) and read its events in the background while the
    scenario goes on (bounded; stopped at the end of the scenario).

        When the router's events are watched
    """
    state = state_of(context)
    url = state.client().base_url + router_client.EVENTS_PATH
    watch = EventWatch(suite_of(context).loop, url, _headers(context), limit=router_client.STATUS_TIMEOUT * 3)
    state.results.watches.append(watch)
    state.part(RouterState).events = watch
    state.results.last = watch.exchange
    # the router's events are sent only to who listens when they happen: wait until the stream is open
    expect(watch.wait_answered(EVENT_WAIT), f"{router_client.EVENTS_PATH} did not answer within {EVENT_WAIT:.0f}s",
           watch.exchange)


def _events(context: Any) -> EventWatch:
    watch = state_of(context).part(RouterState).events
    expect(watch is not None, "no router events are watched: add 'When the router's events are watched' first")
    return watch


@step("the router's events show model {name:w} going {statuses}")
def step_router_events_show(context: Any, name: str, statuses: str) -> None:
    """Wait (bounded) until ``/models/sse`` has reported the last of these statuses for the model; it must have
    reported exactly these, in order, with a loading progress that never goes back, the model's info on
    ``loaded`` and exit code 0 on ``unloaded``.

        Then the router's events show model alpha going loading, loaded, unloaded
    """
    expected = _names(statuses)
    watch = _events(context)
    watch.wait_for(lambda events: len(_reported(watch, name)) >= len(expected), EVENT_WAIT)
    state_of(context).results.last = watch.exchange
    expect_status(watch.exchange, 200)
    router_client.expect_status_events(watch.exchange, name, expected)


def _reported(watch: EventWatch, name: str) -> list[str]:
    try:
        return router_client.statuses_in_events(router_client.router_events(watch.exchange), name)
    except AssertionError:
        return []  # a malformed event: the check after the wait says so


@step("the router's events report no model but {name:w}")
def step_router_events_only(context: Any, name: str) -> None:
    """No status event of ``/models/sse`` so far was about another model than this one.

        Then the router's events report no model but alpha
    """
    watch = _events(context)
    expect_status(watch.exchange, 200)
    others = router_client.other_models_in_events(watch.exchange, name)
    expect(not others, f"{router_client.EVENTS_PATH} reported statuses of {', '.join(others)} too, though only "
                       f"{name} was loaded\n{watch.exchange.describe()}")


@step("the router's /props describe a router of at most {count:d} models with autoload {switch:w}")
def step_router_props(context: Any, count: int, switch: str) -> None:
    """``GET /props``: ``role`` router, ``max_instances`` N, ``models_autoload`` on or off.

        Then the router's /props describe a router of at most 4 models with autoload on
    """
    expect(switch in ("on", "off"), f"autoload {switch}: say on or off")
    exchange, props = router_client.router_props(state_of(context).client(), _headers(context))
    expect_equal(props["max_instances"], count, "max_instances of /props", exchange)
    expect_equal(props["models_autoload"], switch == "on", "models_autoload of /props", exchange)


# ----------------------------------------------------------------------------------------------
# requests kept running while the router loads or evicts models
# ----------------------------------------------------------------------------------------------

@step("the queued prompt is sent to model {name:w} in the background")
def step_prompt_to_model_in_background(context: Any, name: str) -> None:
    """Send the last queued user prompt as a chat to ``/v1/chat/completions`` naming this model, without
    waiting for the answer (checked by ``every background chat was answered by its model, in full``).

        When the queued prompt is sent to model beta in the background
    """
    state = state_of(context)
    draft = state.request
    routed = RequestDraft(**{**vars(draft), "model": name, "prompts": []})
    send_in_background(context, "/v1/chat/completions", chat_payload(routed, pop_prompt(context, "user prompt")),
                       raw_headers(draft), lambda exchange: exchange)
    state.part(RouterState).background.append((name, draft.n_predict))


@step("the router is seen busy with model {name:w}")
def step_router_busy_with(context: Any, name: str) -> None:
    """Poll ``GET /slots?model=NAME`` until the model's instance has a slot processing (bounded).

        Then the router is seen busy with model alpha
    """
    state = state_of(context)
    pending = state.results.pending
    router_client.wait_until_model_busy(state.client(), name, lambda: all(p.future.done() for p in pending),
                                        headers=_headers(context))


@step("every background chat was answered by its model, in full")
def step_background_chats_answered(context: Any) -> None:
    """Wait for the background chats (bounded): each answered 200 by the model it named, none cut short
    (``finish_reason`` length and all of its ``max_tokens`` generated, when it set a budget).

        Then every background chat was answered by its model, in full
    """
    state = state_of(context)
    exchanges: list[Exchange] = gather_results(context)
    asked = state.part(RouterState).background
    expect_equal(len(exchanges), len(asked), "background chats answered")
    for exchange, (model, max_tokens) in zip(exchanges, asked):
        router_client.expect_routed_chat(exchange, model, max_tokens)
    state.part(RouterState).background = []
