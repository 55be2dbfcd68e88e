"""Plain HTTP steps: send any request, then check status, headers and JSON fields of the answer."""

from __future__ import annotations

import json
from typing import Any

from llama_bdd.client.checks import MISSING, field_at, json_value

from .core import expect, expect_equal, expect_status, state_of, step
from .core.scenario import last_exchange


@step("a {method:w} request to {path:UrlPath} with JSON {body}")
def step_request_with_json(context: Any, method: str, path: str, body: str) -> None:
    """Send a request with a one-line JSON body (sent as is, so malformed JSON can be tested too).

        When a POST request to /tokenize with JSON {"content": "hello"}
    """
    state = state_of(context)
    state.results.openai_error = None
    state.results.last = state.client().request(method.upper(), path, raw_body=body,
                                                headers=state.request.auth_headers())


@step("a {method:w} request to {path:UrlPath} with:")
def step_request_with_text(context: Any, method: str, path: str) -> None:
    """Send a request whose body is the step's text block, as is.

        When a POST request to /completion with:
          \"\"\"
          {"prompt": "Hello", "n_predict": 4}
          \"\"\"
    """
    state = state_of(context)
    state.results.openai_error = None
    state.results.last = state.client().request(method.upper(), path, raw_body=context.text,
                                                headers=state.request.auth_headers())


@step("a {method:w} request to {path:UrlPath}")
def step_request(context: Any, method: str, path: str) -> None:
    """Send a request without a body.

        When a GET request to /health
    """
    state = state_of(context)
    state.results.openai_error = None
    state.results.last = state.client().request(method.upper(), path, headers=state.request.auth_headers())


@step("the response status is {status:d}")
def step_response_status(context: Any, status: int) -> None:
    """The last plain request was answered with this HTTP status.

        Then the response status is 200
    """
    expect_status(last_exchange(context), status)


@step("the response header {name} is {value}")
def step_response_header(context: Any, name: str, value: str) -> None:
    """The last plain request's answer has this header with exactly this value.

        Then the response header Content-Type is application/json; charset=utf-8
    """
    exchange = last_exchange(context)
    expect_equal(exchange.header(name), value, f"header {name}", exchange)


@step("the response JSON is {document}")
def step_response_json_is(context: Any, document: str) -> None:
    """The whole JSON answer equals this document.

        Then the response JSON is {"status": "ok"}
    """
    exchange = last_exchange(context)
    expect_equal(exchange.body, json.loads(document), "response JSON", exchange)


@step("the response field {path} is {value}")
def step_response_field(context: Any, path: str, value: str) -> None:
    """A field of the JSON answer (dotted path, list indexes allowed) equals a JSON value or a string.

        Then the response field error.type is invalid_request_error
        Then the response field error.code is 400
    """
    exchange = last_exchange(context)
    actual = field_at(exchange.body, path)
    expect(actual is not MISSING, f"the response has no field '{path}'", exchange)
    expect_equal(actual, json_value(value), f"response field {path}", exchange)


@step("the openai client raised {error_class:w}")
def step_openai_client_raised(context: Any, error_class: str) -> None:
    """The last openai-client request failed with this exception class (``BadRequestError``, ...; a 501 is an
    ``InternalServerError``, the openai client's class for every 5xx).

        Then the openai client raised BadRequestError
    """
    state = state_of(context)
    error = state.results.openai_error
    exchange = state.results.last
    expect(error is not None, f"the openai client raised nothing, expected {error_class}", exchange)
    expect_equal(type(error).__name__, error_class, "exception raised by the openai client", exchange)
