"""Reasoning ("thinking") in chat answers: ``message.reasoning_content`` next to ``message.content``.

With a template whose generation prompt opens a ``<think>`` block (DeepSeek R1, Qwen 3 and the suite's
``think.jinja``), the model's text starts inside that block. ``--reasoning-format`` (or the request's
``reasoning_format``) decides what the answer shows: ``deepseek`` (and ``auto``, the default) moves the
text up to ``</think>`` into ``reasoning_content`` and the rest into ``content``; ``none`` leaves everything,
the opening ``<think>`` of the prompt included, in ``content``. ``--reasoning-budget N`` (or the request's
``reasoning_budget_tokens``) forces ``</think>`` after N tokens of thinking; ``0`` means at once.
Streamed, the two parts come as ``delta.reasoning_content`` and ``delta.content`` fragments.
"""

from __future__ import annotations

from dataclasses import dataclass

from .answers import OaiCompletion
from .checks import expect

THINK_OPEN, THINK_CLOSE = "<think>", "</think>"


@dataclass
class AnswerParts:
    reasoning: str | None  # None when the answer has no reasoning_content at all
    content: str


def parts_of(result: OaiCompletion) -> AnswerParts:
    """The reasoning and the content of a chat answer, plain or streamed (fragments joined)."""
    if result.chunks is None:
        message = (result.raw or {}).get("choices", [{}])[0].get("message") or {}
        return AnswerParts(message.get("reasoning_content"), message.get("content") or "")
    reasoning, content = None, ""
    for chunk in result.chunks:
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            if delta.get("reasoning_content") is not None:
                reasoning = (reasoning or "") + delta["reasoning_content"]
            content += delta.get("content") or ""
    return AnswerParts(reasoning, content)


def expect_reasoning_separated(result: OaiCompletion) -> AnswerParts:
    """``reasoning_content`` holds text, and neither part shows a ``<think>`` tag."""
    parts = parts_of(result)
    expect(bool(parts.reasoning and parts.reasoning.strip()), f"the answer has no reasoning_content: {parts}",
           result.exchange)
    for name, text in (("reasoning_content", parts.reasoning or ""), ("content", parts.content)):
        for tag in (THINK_OPEN, THINK_CLOSE):
            expect(tag not in text, f"{name} still shows {tag}: {text!r}", result.exchange)
    return parts


def expect_reasoning_in_content(result: OaiCompletion) -> AnswerParts:
    """No ``reasoning_content``; ``content`` starts with the ``<think>`` the prompt opened."""
    parts = parts_of(result)
    expect(not parts.reasoning, f"reasoning_content should be absent, is {parts.reasoning!r}", result.exchange)
    expect(parts.content.startswith(THINK_OPEN), f"content should start with {THINK_OPEN}: {parts.content!r}",
           result.exchange)
    return parts


def expect_thinking_closed(result: OaiCompletion) -> AnswerParts:
    """Thinking ended: the answer has content after it, with no ``<think>`` tag left in either part."""
    parts = parts_of(result)
    expect(parts.content.strip() != "", f"the answer has no content after its thinking: {parts}", result.exchange)
    for name, text in (("reasoning_content", parts.reasoning or ""), ("content", parts.content)):
        for tag in (THINK_OPEN, THINK_CLOSE, "think>"):
            expect(tag not in text, f"{name} still shows {tag!r}: {text!r}", result.exchange)
    return parts
