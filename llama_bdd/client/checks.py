"""Structural checks every API area uses: status codes, equality, JSON fields; failures show the exchange."""

from __future__ import annotations

import json
from typing import Any

from llama_bdd.harness.http import Exchange

from .routes import absent_route, newer_route

# what llama-server answers JSON with
JSON_CONTENT_TYPE = "application/json; charset=utf-8"
MISSING = object()  # what ``field_at`` returns for an absent field


def expect_status(exchange: Exchange, *expected: int) -> Exchange:
    """Fail, showing the whole exchange, unless the response status is one of ``expected``.

    A 404 from a route newer than the oldest build raises ``AbsentRoute`` (see ``routes``).
    """
    if exchange.status not in expected:
        wanted = " or ".join(str(code) for code in expected)
        message = (f"expected HTTP {wanted} from {exchange.method} {exchange.url}, "
                   f"got {exchange.status or 'no response'}\n{exchange.describe()}")
        if exchange.status == 404 and newer_route(exchange.method, exchange.url, exchange.response_text):
            raise absent_route(exchange.method, exchange.url, message)
        raise AssertionError(message)
    return exchange


def expect_equal(actual: Any, expected: Any, what: str, exchange: Exchange | None = None) -> None:
    if actual != expected:
        detail = f"\n{exchange.describe()}" if exchange is not None else ""
        raise AssertionError(f"{what}: expected {expected!r}, got {actual!r}{detail}")


def expect(condition: bool, message: str, exchange: Exchange | None = None) -> None:
    if not condition:
        detail = f"\n{exchange.describe()}" if exchange is not None else ""
        raise AssertionError(f"{message}{detail}")


def expect_unauthorized(exchange: Exchange) -> None:
    """401 with ``error.type`` ``authentication_error``."""
    expect_status(exchange, 401)
    body = exchange.body
    error = body.get("error", {}) if isinstance(body, dict) else {}
    expect_equal(error.get("type"), "authentication_error", "error.type of the 401 response", exchange)


def expect_error(exchange: Exchange, status: int, error_type: str) -> dict[str, Any]:
    """A refused request: this status, a JSON ``error`` with ``code`` the same status, this ``type``, a message.

    llama-server answers ``{"error": {"code": 400, "type": "invalid_request_error", "message": "..."}}``
    with ``Content-Type: application/json; charset=utf-8``. The status is compared first.
    """
    expect_status(exchange, status)
    expect_equal(exchange.header("Content-Type"), JSON_CONTENT_TYPE, "Content-Type of the error", exchange)
    body = exchange.body
    error = body.get("error") if isinstance(body, dict) else None
    expect(isinstance(error, dict), "the answer has no error object", exchange)
    expect_equal(error.get("code"), status, "error.code", exchange)
    expect_equal(error.get("type"), error_type, "error.type", exchange)
    expect(isinstance(error.get("message"), str) and error["message"] != "", "error.message is empty", exchange)
    return error


def json_value(text: str) -> Any:
    """A step argument as JSON when it parses (``0``, ``true``, ``"x"``, ``[1]``), else the text itself."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def field_at(document: Any, path: str) -> Any:
    """``error.type`` or ``choices.0.message`` inside a JSON document; ``MISSING`` when absent."""
    value = document
    for part in path.split("."):
        if isinstance(value, list) and part.lstrip("-").isdigit() and -len(value) <= int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return MISSING
    return value


def json_or_none(exchange: Exchange) -> Any:
    """The JSON body, or None when the answer is not JSON."""
    try:
        return exchange.body
    except AssertionError:
        return None
