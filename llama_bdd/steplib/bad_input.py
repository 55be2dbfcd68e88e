"""Requests the server must refuse, and the proof that it is still fine afterwards.

llama-server answers a refused request with a JSON error, ``Content-Type: application/json;
charset=utf-8``: ``{"error": {"code": 400, "type": "invalid_request_error", "message": "..."}}``
(``not_found_error`` with 404 for an unknown route). A 401 never satisfies these checks: the status is
compared first.
"""

from __future__ import annotations

from typing import Any

from llama_bdd.client.checks import expect_error

from .core import expect, expect_equal, expect_status, state_of, step
from .core.scenario import last_exchange


@step("the request is rejected with {status:d} {error_type:w}")
def step_rejected(context: Any, status: int, error_type: str) -> None:
    """The last request got this status and a JSON error of this type (``error.code`` the same status).

        Then the request is rejected with 404 not_found_error
    """
    expect_error(last_exchange(context), status, error_type)


@step('the request is rejected with {status:d} {error_type:w} saying "{text}"')
def step_rejected_saying(context: Any, status: int, error_type: str, text: str) -> None:
    """As above, and ``error.message`` contains this text.

        Then the request is rejected with 400 invalid_request_error saying "'messages' is required"
    """
    exchange = last_exchange(context)
    error = expect_error(exchange, status, error_type)
    expect(text in error["message"], f"error.message should contain {text!r}: {error['message']!r}", exchange)


@step("the server still generates text")
def step_still_generates(context: Any) -> None:
    """A small ``/completion`` (2 tokens) still succeeds: the refused request left the server working.

        Then the server still generates text
    """
    state = state_of(context)
    exchange = state.client().post("/completion", {"prompt": "Hello", "n_predict": 2, "ignore_eos": True})
    expect_status(exchange, 200)
    expect_equal(exchange.body.get("timings", {}).get("predicted_n"), 2, "tokens predicted after the refused request",
                 exchange)
