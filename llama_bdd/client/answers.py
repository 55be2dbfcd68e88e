"""Typed answers of the generation routes, whichever endpoint and client produced them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from llama_bdd.harness.http import Exchange


@dataclass
class Completion:
    """A finished generation, whichever endpoint produced it."""

    content: str
    predicted_n: int
    exchange: Exchange | None = None
    finish_reason: str | None = None
    raw: Any = None


@dataclass
class OaiCompletion(Completion):
    """An OpenAI-compatible answer: what ``Completion`` has, plus usage, the model names and stream chunks."""

    usage: dict[str, Any] | None = None
    models: list[str] = field(default_factory=list)  # ``model`` of the answer, or of every stream chunk
    chunks: list[dict[str, Any]] | None = None  # the JSON chunks of a stream (None when not streamed)
    client: str = "raw HTTP"
