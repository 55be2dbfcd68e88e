"""Router mode: one llama-server in front of several models (``--models-dir``, ``--models-preset``).

A router has no model of its own. ``GET /models`` and ``GET /v1/models`` list every model it knows, each
with a ``status.value`` (``unloaded``, ``loading``, ``loaded``, ``sleeping``, ...; a model whose instance
died also says ``failed: true`` and its ``exit_code``). ``POST /models/load`` and ``/models/unload`` start
and stop a model's instance (a child ``llama-server``); a request naming a model in its ``model`` field (or
``?model=`` for GET routes) is forwarded to that instance, which is loaded on demand unless the router runs
with ``--no-models-autoload``. ``--models-max N`` bounds the instances running at once: the least recently
used idle one makes room, a busy one is waited for. ``GET /props`` of the router says ``role: router``.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

from llama_bdd.harness.http import Exchange, HttpClient

from .checks import expect, expect_equal, expect_status, json_or_none

# a second model for router scenarios (any GGUF); without it the default model serves under every name
SECOND_MODEL_ENV = "LLAMA_BDD_ROUTER_SECOND_MODEL"
MODEL_LISTINGS = ("/models", "/v1/models")
STATUSES = ("unloaded", "loading", "loaded", "sleeping", "downloading", "downloaded")
STATUS_TIMEOUT = 120.0  # a child server loads its model: seconds on a busy machine
POLL_INTERVAL = 0.02

LISTING_SCHEMA = {
    "type": "object",
    "required": ["object", "data"],
    "properties": {
        "object": {"const": "list"},
        "data": {"type": "array", "items": {
            "type": "object",
            "required": ["id", "object", "status"],
            "properties": {
                "id": {"type": "string", "minLength": 1},
                "object": {"const": "model"},
                "status": {"type": "object", "required": ["value"],
                           "properties": {"value": {"enum": list(STATUSES)},
                                          "failed": {"type": "boolean"},
                                          "exit_code": {"type": "integer"}}},
            },
        }},
    },
}
ROUTER_PROPS_SCHEMA = {
    "type": "object",
    "required": ["role", "max_instances", "models_autoload"],
    "properties": {"role": {"const": "router"}, "max_instances": {"type": "integer", "minimum": 0},
                   "models_autoload": {"type": "boolean"}},
}


@dataclass(frozen=True)
class ModelStatus:
    """One model of a router's listing."""

    id: str
    value: str
    failed: bool = False
    exit_code: int | None = None


# ----------------------------------------------------------------------------------------------
# the models a router serves
# ----------------------------------------------------------------------------------------------

def populate_models_dir(directory: Path, names: list[str], default_model: Path, second_model: Path | None) -> None:
    """``NAME.gguf`` for each name: the first is the default model, the others the second model if there is
    one, else the default model again. Hard links where the file system allows them (no copy), else copies."""
    directory.mkdir(parents=True, exist_ok=True)
    for index, name in enumerate(names):
        source = default_model if index == 0 or second_model is None else second_model
        target = directory / f"{name}.gguf"
        if target.exists():
            target.unlink()
        try:
            os.link(source, target)
        except OSError:
            shutil.copyfile(source, target)


def second_model_from_env() -> Path | None:
    """The GGUF named by ``LLAMA_BDD_ROUTER_SECOND_MODEL``; None when unset. A missing file is an error."""
    value = os.environ.get(SECOND_MODEL_ENV, "").strip()
    if not value:
        return None
    path = Path(value).expanduser()
    expect(path.is_file(), f"{SECOND_MODEL_ENV}={value}: no such file")
    return path


def preset_text(template: str, default_model: Path) -> str:
    """A ``--models-preset`` INI file from a scenario's text: ``{default_model}`` becomes the model's path."""
    return template.replace("{default_model}", str(default_model)) + "\n"


# ----------------------------------------------------------------------------------------------
# listings and statuses
# ----------------------------------------------------------------------------------------------

def list_models(http: HttpClient, path: str = "/models", headers: dict[str, str] | None = None,
                record: bool = True) -> tuple[Exchange, dict[str, ModelStatus]]:
    """One read of a router listing, validated: model id -> status."""
    expect(path in MODEL_LISTINGS, f"{path} is no model listing of a router: use {' or '.join(MODEL_LISTINGS)}")
    exchange = expect_status(http.get(path, headers=headers or {}, record=record), 200)
    body = json_or_none(exchange)
    try:
        jsonschema.validate(body, LISTING_SCHEMA)
    except jsonschema.ValidationError as error:
        raise AssertionError(f"{path} is not a router's model listing: {error.message} "
                             f"(at {'/'.join(map(str, error.absolute_path)) or 'the top'})\n"
                             f"{exchange.describe()}") from None
    models = {}
    for item in body["data"]:
        status = item["status"]
        models[item["id"]] = ModelStatus(item["id"], status["value"], bool(status.get("failed")),
                                         status.get("exit_code"))
    return exchange, models


def expect_listing(http: HttpClient, path: str, names: list[str], status: str,
                   headers: dict[str, str] | None = None) -> None:
    """The listing names exactly these models, each with this status."""
    exchange, models = list_models(http, path, headers)
    expect_equal(sorted(models), sorted(names), f"models listed by {path}", exchange)
    for name in names:
        expect_equal(models[name].value, status, f"status.value of {name} in {path}", exchange)


def status_of(http: HttpClient, name: str, headers: dict[str, str] | None = None) -> tuple[Exchange, ModelStatus]:
    exchange, models = list_models(http, "/models", headers)
    expect(name in models, f"/models does not list {name}; it lists {', '.join(sorted(models)) or 'nothing'}",
           exchange)
    return exchange, models[name]


def watch_status(http: HttpClient, name: str, until: str, timeout: float = STATUS_TIMEOUT,
                 headers: dict[str, str] | None = None) -> list[str]:
    """Poll ``/models`` until ``name`` has status ``until``: the statuses seen on the way, each once, in order.

    Fails when the time runs out, or at once when the model's instance failed (``failed: true``) while
    something else than ``unloaded`` was awaited.
    """
    deadline = time.monotonic() + timeout
    seen: list[str] = []
    while True:
        exchange, models = list_models(http, "/models", headers, record=False)
        model = models.get(name)
        expect(model is not None, f"/models does not list {name}", exchange)
        if not seen or seen[-1] != model.value:
            seen.append(model.value)
        if model.value == until:
            http.history.append(exchange)
            return seen
        if model.failed and model.value == "unloaded" and until != "unloaded" and "loading" in seen:
            http.history.append(exchange)
            raise AssertionError(f"the instance of {name} failed (exit code {model.exit_code}) instead of "
                                 f"becoming {until}; statuses seen: {' -> '.join(seen)}\n{exchange.describe()}")
        if time.monotonic() > deadline:
            http.history.append(exchange)
            raise AssertionError(f"{name} did not become {until} within {timeout:.0f}s; statuses seen: "
                                 f"{' -> '.join(seen)}\n{exchange.describe()}")
        time.sleep(POLL_INTERVAL)


def expect_passage(seen: list[str], expected: list[str], name: str) -> None:
    """The statuses seen, in order, are exactly ``expected`` (each seen at least once, nothing else)."""
    expect(seen == expected, f"{name} should pass through {' -> '.join(expected)}; "
                             f"the statuses seen were {' -> '.join(seen)}")


# ----------------------------------------------------------------------------------------------
# loading and unloading
# ----------------------------------------------------------------------------------------------

def load(http: HttpClient, name: str, headers: dict[str, str] | None = None) -> Exchange:
    """``POST /models/load``: 200 ``{"success": true}``."""
    return _expect_success(http.post("/models/load", {"model": name}, headers=headers or {}))


def unload(http: HttpClient, name: str, headers: dict[str, str] | None = None) -> Exchange:
    """``POST /models/unload``: 200 ``{"success": true}``."""
    return _expect_success(http.post("/models/unload", {"model": name}, headers=headers or {}))


def _expect_success(exchange: Exchange) -> Exchange:
    expect_status(exchange, 200)
    expect_equal(json_or_none(exchange), {"success": True}, f"answer of {exchange.method} {exchange.url}", exchange)
    return exchange


def router_props(http: HttpClient, headers: dict[str, str] | None = None) -> tuple[Exchange, dict[str, Any]]:
    """``GET /props`` of a router: ``role`` router, ``max_instances`` and ``models_autoload``."""
    exchange = expect_status(http.get("/props", headers=headers or {}), 200)
    body = json_or_none(exchange)
    try:
        jsonschema.validate(body, ROUTER_PROPS_SCHEMA)
    except jsonschema.ValidationError as error:
        raise AssertionError(f"/props is not a router's: {error.message}\n{exchange.describe()}") from None
    return exchange, body


def wait_until_model_busy(http: HttpClient, name: str, done: Any, timeout: float = 30.0,
                          headers: dict[str, str] | None = None) -> Exchange:
    """Poll ``GET /slots?model=NAME`` (forwarded to the model's instance) until a slot is processing.

    ``done()`` says whether the request meant to keep it busy has already finished: then it never will be.
    """
    deadline = time.monotonic() + timeout
    while True:
        exchange = http.get("/slots", params={"model": name}, headers=headers or {}, record=False, timeout=10)
        slots = json_or_none(exchange)
        if exchange.status == 200 and isinstance(slots, list) and any(s.get("is_processing") for s in slots):
            http.history.append(exchange)
            return exchange
        if done() or time.monotonic() > deadline:
            http.history.append(exchange)
            why = "the request finished first" if done() else f"{timeout:.0f}s passed"
            raise AssertionError(f"model {name} was never seen busy ({why}); make its request longer\n"
                                 f"{exchange.describe()}")
        time.sleep(POLL_INTERVAL)


def expect_routed_chat(exchange: Exchange, model: str, max_tokens: int | None) -> None:
    """A chat answered by ``model``'s instance: 200, ``model`` the name asked for, and, when the request set a
    budget, every token of it generated (``finish_reason`` length): the instance was not stopped mid-answer."""
    expect_status(exchange, 200)
    body = json_or_none(exchange)
    expect(isinstance(body, dict) and isinstance(body.get("choices"), list) and body["choices"],
           "a chat answer must be a JSON object with choices", exchange)
    expect_equal(body.get("model"), model, "model of the answer", exchange)
    if max_tokens is not None:
        expect_equal(body["choices"][0].get("finish_reason"), "length", "finish_reason", exchange)
        expect_equal((body.get("usage") or {}).get("completion_tokens"), max_tokens, "usage.completion_tokens",
                     exchange)


# ----------------------------------------------------------------------------------------------
# GET /models/sse: the router's events
# ----------------------------------------------------------------------------------------------

EVENTS_PATH = "/models/sse"
# The README names every status event "model_status"; b11434 names the first event of a load
# "model_status" and the rest "status_change". Both are status events here (the server is the fact).
STATUS_EVENTS = ("model_status", "status_change")
EVENT_SCHEMA = {
    "type": "object",
    "required": ["model", "event"],
    "properties": {"model": {"type": "string", "minLength": 1}, "event": {"type": "string", "minLength": 1},
                   "data": {"type": "object"}},
}
LOADING_PROGRESS_SCHEMA = {
    "type": "object",
    "required": ["stages", "current", "value"],
    "properties": {"stages": {"type": "array", "minItems": 1, "items": {"type": "string"}},
                   "current": {"type": "string"}, "value": {"type": "number", "minimum": 0, "maximum": 1}},
}


def router_events(exchange: Exchange) -> list[dict[str, Any]]:
    """The JSON payloads of the events read so far, each validated as a router event."""
    payloads = []
    for number, event in enumerate(exchange.events or []):
        try:
            payload = json.loads(event.data)
            jsonschema.validate(payload, EVENT_SCHEMA)
        except (ValueError, jsonschema.ValidationError) as error:
            raise AssertionError(f"event {number} of {EVENTS_PATH} is no router event ({error}): "
                                 f"{event.data[:300]}\n{exchange.describe()}") from None
        payloads.append(payload)
    return payloads


def statuses_in_events(events: list[dict[str, Any]], name: str) -> list[str]:
    """The statuses the status events report for ``name``, each once per run of equal ones, in order."""
    seen: list[str] = []
    for event in events:
        if event["model"] == name and event["event"] in STATUS_EVENTS:
            status = event.get("data", {}).get("status")
            if status is not None and (not seen or seen[-1] != status):
                seen.append(status)
    return seen


def expect_status_events(exchange: Exchange, name: str, expected: list[str], loaded_info: bool = True) -> None:
    """The events report ``name`` going through ``expected`` (nothing else, in order). Its loading reports its
    progress, which stays in [0, 1], follows its stages in order and never goes back within a stage; a
    ``loaded`` event carries the model's ``info`` (id = the model's name), an ``unloaded`` one exit code 0."""
    events = router_events(exchange)
    seen = statuses_in_events(events, name)
    expect(seen == expected, f"{EVENTS_PATH} should report {name} going {' -> '.join(expected)}; it reported "
                             f"{' -> '.join(seen) or 'no status'}\n{exchange.describe()}")
    stage_index, value, progress_events = -1, 0.0, 0
    for event in events:
        data = event.get("data", {})
        if event["model"] != name or event["event"] not in STATUS_EVENTS:
            continue
        status = data.get("status")
        if status == "loading" and "progress" in data:
            progress = data["progress"]
            try:
                jsonschema.validate(progress, LOADING_PROGRESS_SCHEMA)
            except jsonschema.ValidationError as error:
                raise AssertionError(f"loading progress of {name}: {error.message}: {progress}\n"
                                     f"{exchange.describe()}") from None
            expect(progress["current"] in progress["stages"],
                   f"loading stage {progress['current']!r} of {name} is not among its stages {progress['stages']}",
                   exchange)
            index = progress["stages"].index(progress["current"])
            expect(index > stage_index or (index == stage_index and progress["value"] >= value),
                   f"the loading progress of {name} went back: stage {progress['current']} at "
                   f"{progress['value']} after stage {stage_index} at {value}", exchange)
            stage_index, value = index, progress["value"]
            progress_events += 1
        elif status == "loaded":
            stage_index, value = -1, 0.0
            if loaded_info:
                info = data.get("info")
                expect(isinstance(info, dict) and info.get("id") == name,
                       f"the loaded event of {name} should carry the model's info with id {name!r}: {data}",
                       exchange)
        elif status == "unloaded":
            expect_equal(data.get("exit_code"), 0, f"exit_code of the unloaded event of {name}", exchange)
    expect("loading" not in expected or progress_events > 0,
           f"no loading event of {name} reported its progress (stages, current, value)", exchange)


def other_models_in_events(exchange: Exchange, name: str) -> list[str]:
    """The models other than ``name`` that status events were reported for."""
    return sorted({event["model"] for event in router_events(exchange)
                   if event["model"] != name and event["event"] in STATUS_EVENTS})
