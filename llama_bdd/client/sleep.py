"""Sleeping on idle (``--sleep-idle-seconds N``): after N seconds without a task the server unloads its model
and KV cache; ``GET /props`` then says ``is_sleeping: true``.

The server's README: ``GET /health``, ``/props``, ``/models`` and ``/metrics`` are no tasks; they answer while
it sleeps and neither wake it nor reset the idle timer. Any other request (a completion, ``/tokenize``,
``/slots``) wakes it: the model is loaded again and the request answered as by an awake server. While it
sleeps ``/metrics`` serves the snapshot taken as it fell asleep.
"""

from __future__ import annotations

import time
from typing import Any

from llama_bdd.harness.http import Exchange, HttpClient

from .checks import expect, expect_equal, expect_status, json_or_none

SLEEP_POLL_INTERVAL = 0.1
# the routes that answer a sleeping server without waking it, and what each must answer
READ_ONLY_ROUTES = ("/health", "/props", "/models", "/v1/models")
METRICS_ROUTE = "/metrics"


def is_sleeping(http: HttpClient, headers: dict[str, str] | None = None, record: bool = True) -> tuple[Exchange, bool]:
    """``GET /props``: its ``is_sleeping`` (a boolean, or the check fails)."""
    exchange = expect_status(http.get("/props", headers=headers or {}, record=record), 200)
    body = json_or_none(exchange)
    expect(isinstance(body, dict) and isinstance(body.get("is_sleeping"), bool),
           "/props has no boolean is_sleeping", exchange)
    return exchange, body["is_sleeping"]


def expect_sleeping(http: HttpClient, sleeping: bool, headers: dict[str, str] | None = None) -> None:
    exchange, now = is_sleeping(http, headers)
    expect_equal(now, sleeping, "is_sleeping of /props", exchange)


def wait_until_asleep(http: HttpClient, timeout: float, headers: dict[str, str] | None = None) -> float:
    """Poll ``/props`` until ``is_sleeping`` is true; the seconds it took. Fails after ``timeout``."""
    started = time.monotonic()
    while True:
        exchange, sleeping = is_sleeping(http, headers, record=False)
        if sleeping:
            http.history.append(exchange)
            return time.monotonic() - started
        if time.monotonic() - started > timeout:
            http.history.append(exchange)
            raise AssertionError(f"the server did not fall asleep within {timeout:.0f}s: /props still says "
                                 f"is_sleeping false\n{exchange.describe()}")
        time.sleep(SLEEP_POLL_INTERVAL)


def expect_answer_while_asleep(http: HttpClient, path: str, headers: dict[str, str] | None = None) -> Exchange:
    """``GET path`` answers 200 with what that route answers awake, and the server is still asleep afterwards."""
    exchange = expect_status(http.get(path, headers=headers or {}), 200)
    body: Any = json_or_none(exchange) if path != METRICS_ROUTE else exchange.response_text
    if path in ("/health", "/v1/health"):
        expect_equal(body, {"status": "ok"}, f"{path} while asleep", exchange)
    elif path == "/props":
        expect(isinstance(body, dict) and body.get("is_sleeping") is True, "/props should say is_sleeping true",
               exchange)
    elif path in ("/models", "/v1/models"):
        expect(isinstance(body, dict) and isinstance(body.get("data"), list) and len(body["data"]) == 1,
               f"{path} should list the one model the server serves", exchange)
    elif path == METRICS_ROUTE:
        expect("llamacpp:" in body, "/metrics should answer the server's metrics", exchange)
    after, sleeping = is_sleeping(http, headers)
    expect(sleeping, f"GET {path} woke the server up: /props says is_sleeping false afterwards", after)
    return exchange
