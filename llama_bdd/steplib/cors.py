"""CORS: preflight requests, requests from an origin, and the ``Access-Control-*`` headers that come back.

llama-server sets the headers before routing, so every answer carries them, errors included. By default
(``--cors-origins *`` with credentials) it echoes the request's ``Origin``; ``--cors-origins localhost``
echoes only localhost origins; any other value is sent as it is.
"""

from __future__ import annotations

from typing import Any

from llama_bdd.client import cors as cors_client
from llama_bdd.client.cors import ALLOW_ORIGIN
from llama_bdd.harness.http import Exchange

from .core import expect, expect_equal, state_of, step
from .core.scenario import last_exchange


def last_answer(context: Any) -> Exchange:
    return last_exchange(context, "add 'When an OPTIONS request is sent from ...' or 'When origin ... sends ...'")


def preflight(context: Any, path: str, origin: str) -> None:
    state = state_of(context)
    state.results.last = cors_client.preflight(state.client(), path, origin)


@step("an OPTIONS request is sent from {origin}")
def step_options_request(context: Any, origin: str) -> None:
    """Preflight ``/v1/chat/completions`` from an origin; expects 200.

        When an OPTIONS request is sent from http://localhost
    """
    preflight(context, "/v1/chat/completions", origin)


@step("an OPTIONS request to {path} is sent from {origin}")
def step_options_request_to(context: Any, path: str, origin: str) -> None:
    """Preflight any path from an origin (as a browser does before a cross-origin POST); expects 200.

        When an OPTIONS request to /v1/embeddings is sent from https://web.mydomain.fr
    """
    preflight(context, path, origin)


@step("CORS header {cors_header} is set to {cors_header_value}")
def step_cors_header(context: Any, cors_header: str, cors_header_value: str) -> None:
    """The last answer carries this header with this exact value.

        Then CORS header Access-Control-Allow-Origin is set to http://localhost
    """
    exchange = last_answer(context)
    expect_equal(exchange.header(cors_header), cors_header_value, f"header {cors_header}", exchange)


@step("origin {origin} sends {method:w} {path:UrlPath} with JSON {body}")
def step_origin_sends_json(context: Any, origin: str, method: str, path: str, body: str) -> None:
    """Send a request with this ``Origin`` header and a one-line JSON body (and the user API key, if any).

    No status is expected: check it with ``the response status is ...``.

        When origin https://web.mydomain.fr sends POST /completion with JSON {"prompt": "Hi", "n_predict": 1}
    """
    state = state_of(context)
    headers = {"Origin": origin, **state.request.auth_headers()}
    state.results.last = state.client().request(method.upper(), path, raw_body=body, headers=headers)


@step("origin {origin} sends {method:w} {path:UrlPath}")
def step_origin_sends(context: Any, origin: str, method: str, path: str) -> None:
    """Send a request without a body with this ``Origin`` header (and the user API key, if any).

        When origin https://web.mydomain.fr sends GET /metrics
    """
    state = state_of(context)
    headers = {"Origin": origin, **state.request.auth_headers()}
    state.results.last = state.client().request(method.upper(), path, headers=headers)


@step("the response allows the origin {origin}")
def step_answer_allows_origin(context: Any, origin: str) -> None:
    """``Access-Control-Allow-Origin`` of the last answer is exactly this origin (a browser lets it read it).

        Then the response allows the origin https://web.mydomain.fr
    """
    exchange = last_answer(context)
    expect_equal(exchange.header(ALLOW_ORIGIN), origin, f"header {ALLOW_ORIGIN}", exchange)


@step("the response does not allow the origin {origin}")
def step_answer_denies_origin(context: Any, origin: str) -> None:
    """``Access-Control-Allow-Origin`` is absent, or names neither this origin nor ``*`` (a browser blocks it).

        Then the response does not allow the origin https://evil.example
    """
    exchange = last_answer(context)
    allowed = exchange.header(ALLOW_ORIGIN)
    expect(allowed not in (origin, "*"),
           f"{origin} is not an allowed origin, yet the answer has {ALLOW_ORIGIN}: {allowed}", exchange)


@step("the response has no {cors_header} header")
def step_answer_lacks_header(context: Any, cors_header: str) -> None:
    """The last answer does not carry this header at all.

        Then the response has no Access-Control-Allow-Origin header
    """
    exchange = last_answer(context)
    expect(exchange.header(cors_header) is None,
           f"the answer should have no {cors_header} header, it has: {exchange.header(cors_header)}", exchange)


@step("the preflight allows the method and headers it asked for")
def step_preflight_allows_request(context: Any) -> None:
    """The last preflight (POST with ``authorization, content-type``) is answered with that method and those
    headers allowed, listed or as ``*``: what a browser needs, whatever list a build sends.

        Then the preflight allows the method and headers it asked for
    """
    cors_client.expect_preflight_allows_request(last_answer(context))
