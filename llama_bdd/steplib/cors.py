"""CORS: preflight requests and the headers that come back."""

from __future__ import annotations

from typing import Any

from .core import expect, expect_equal, expect_status, state_of, step


@step("an OPTIONS request is sent from {origin}")
def step_options_request(context: Any, origin: str) -> None:
    """Preflight ``/v1/chat/completions`` from an origin; expects 200.

        When an OPTIONS request is sent from http://localhost
    """
    state = state_of(context)
    exchange = state.client().request("OPTIONS", "/v1/chat/completions", headers={"Origin": origin})
    state.results.last = expect_status(exchange, 200)


@step("CORS header {cors_header} is set to {cors_header_value}")
def step_cors_header(context: Any, cors_header: str, cors_header_value: str) -> None:
    """The last preflight answer carries this header with this exact value.

        Then CORS header Access-Control-Allow-Origin is set to http://localhost
    """
    exchange = state_of(context).results.last
    expect(exchange is not None, "no OPTIONS request was sent: add 'When an OPTIONS request is sent from ...'")
    expect_equal(exchange.header(cors_header), cors_header_value, f"header {cors_header}", exchange)
