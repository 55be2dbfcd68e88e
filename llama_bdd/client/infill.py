"""``/infill``: fill-in-the-middle code completion, for models with FIM tokens (prefix, suffix, middle).

A model without them (SmolLM2) is refused with 501 ``not_supported_error`` ("Infill is not supported by this
model: prefix token is missing. ..."). A FIM model answers like ``/completion``: ``content``,
``tokens_predicted``, ``stop_type``, and ``truncated``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from llama_bdd.harness.http import Exchange, HttpClient

from .checks import expect, expect_error, expect_status

INFILL_PATH = "/infill"


def unescape(text: str) -> str:
    """A step argument as code: a double-quoted argument is read as a JSON string; otherwise ``\\n``,
    ``\\t``, ``\\"`` and ``\\\\`` escapes are decoded."""
    if len(text) >= 2 and text.startswith('"') and text.endswith('"'):
        try:
            return json.loads(text)
        except ValueError:
            text = text[1:-1]
    out, index = [], 0
    escapes = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}
    while index < len(text):
        if text[index] == "\\" and index + 1 < len(text) and text[index + 1] in escapes:
            out.append(escapes[text[index + 1]])
            index += 2
        else:
            out.append(text[index])
            index += 1
    return "".join(out)


@dataclass
class InfillDraft:
    """The infill parts of the request being built: ``input_prefix``, ``input_suffix``, ``input_extra``."""

    prefix: str = ""
    suffix: str = ""
    extra: list[dict[str, str]] | None = field(default=None)

    def set_extra(self, filename: str, text: str) -> None:
        """One extra context file; ``none`` as the file name sends none."""
        self.extra = None if filename == "none" else [{"filename": filename, "text": unescape(text)}]

    def payload(self, base: dict[str, Any]) -> dict[str, Any]:
        """A completion payload (its ``prompt`` is the text at the cursor) with the infill parts added."""
        payload = {**base, "input_prefix": self.prefix, "input_suffix": self.suffix}
        if self.extra is not None:
            payload["input_extra"] = self.extra
        return payload


def infill_payload(prefix: str, suffix: str, n_predict: int, fields: dict[str, Any]) -> dict[str, Any]:
    return {"input_prefix": prefix, "input_suffix": suffix, "n_predict": n_predict, "temperature": 0, **fields}


def infill(http: HttpClient, payload: dict[str, Any], headers: dict[str, str] | None = None) -> Exchange:
    return http.post(INFILL_PATH, payload, headers=headers)


def expect_not_supported(exchange: Exchange) -> None:
    """501 ``not_supported_error`` naming the missing FIM tokens."""
    error = expect_error(exchange, 501, "not_supported_error")
    expect("infill" in error["message"].lower(), f"the message should say infill is not supported: "
                                                 f"{error['message']!r}", exchange)


def expect_infilled(exchange: Exchange, n_predict: int) -> str:
    """200 with a ``content`` string of at most ``n_predict`` tokens; returns the content."""
    expect_status(exchange, 200)
    body = exchange.body
    expect(isinstance(body.get("content"), str), "the infill answer has no content", exchange)
    predicted = body.get("tokens_predicted")
    expect(isinstance(predicted, int) and 0 < predicted <= n_predict,
           f"tokens_predicted should be 1..{n_predict}, is {predicted}", exchange)
    return body["content"]
