"""The KV cache through the completion API: named prompts evaluated into a slot, what their timings say.

A named prompt is evaluated with ``n_predict`` 0 and ``cache_prompt`` true: the server only fills the KV
cache, and the response's ``timings`` tell how many prompt tokens were processed (``prompt_n``) and how many
came from a cache (``cache_n``). A prompt served whole from a cache re-processes only its last token.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llama_bdd.harness.http import Exchange, HttpClient

from .checks import expect, expect_status

DEFAULT_MEDIA_MARKER = "<__media__>"


@dataclass
class NamedPrompt:
    """A prompt a scenario refers to by name: text, token ids, or text with an image."""

    name: str
    text: str | None = None
    tokens: list[int] | None = None
    image_base64: str | None = None  # the text holds {marker} where the image goes

    def payload_prompt(self, media_marker: str) -> Any:
        if self.tokens is not None:
            return self.tokens
        if self.image_base64 is not None:
            return {"prompt_string": self.text.format(marker=media_marker), "multimodal_data": [self.image_base64]}
        return self.text


def media_marker(http: HttpClient) -> str:
    """The server's media marker: random per server process unless LLAMA_MEDIA_MARKER pins it."""
    props = expect_status(http.get("/props"), 200).body
    return props.get("media_marker") or DEFAULT_MEDIA_MARKER


def evaluation_payload(http: HttpClient, prompt: NamedPrompt, fields: dict[str, Any]) -> dict[str, Any]:
    """``/completion`` body that only evaluates the prompt into the slot's KV cache."""
    marker = media_marker(http) if prompt.image_base64 is not None else DEFAULT_MEDIA_MARKER
    return {"prompt": prompt.payload_prompt(marker), "n_predict": 0, "cache_prompt": True, **fields}


def evaluation_timings(exchange: Exchange) -> dict[str, Any]:
    """The timings of a prompt evaluation, which must have answered 200 with ``prompt_n`` and ``cache_n``."""
    expect_status(exchange, 200)
    timings = exchange.body.get("timings")
    expect(isinstance(timings, dict) and "prompt_n" in timings and "cache_n" in timings,
           "the completion response has no timings.prompt_n / timings.cache_n", exchange)
    return timings
