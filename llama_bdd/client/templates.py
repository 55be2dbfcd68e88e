"""Chat templates: ``--chat-template NAME`` / ``--chat-template-file``, ``/apply-template``,
``chat_template_kwargs`` and ``chat_template_caps`` in ``/props``; the template files of the suite.

``/apply-template`` renders ``messages`` with the server's template (and the request's
``chat_template_kwargs``, merged over ``--chat-template-kwargs``) and answers ``{"prompt": "..."}``.
``/props`` reports ``chat_template`` (the source) and ``chat_template_caps``: ``supports_tools``,
``supports_tool_calls``, ``supports_parallel_tool_calls``, ``supports_system_role``, ... as found by rendering
probe conversations through the template.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from llama_bdd.harness.http import Exchange, HttpClient

from .checks import expect, expect_status

# the templates written for the suite (tests/data/templates/*.jinja)
TEMPLATES_DIR = Path(__file__).resolve().parents[2] / "tests" / "data" / "templates"

# what each built-in template (``--chat-template NAME``) puts around a user turn
FAMILY_MARKERS: dict[str, tuple[str, ...]] = {
    "chatml": ("<|im_start|>user\n", "<|im_end|>", "<|im_start|>assistant\n"),
    "llama3": ("<|start_header_id|>user<|end_header_id|>", "<|eot_id|>", "<|start_header_id|>assistant<|end_header_id|>"),
    "gemma": ("<start_of_turn>user\n", "<end_of_turn>", "<start_of_turn>model\n"),
    "phi3": ("<|user|>", "<|end|>", "<|assistant|>"),
    "mistral-v7": ("[INST]", "[/INST]"),
}


def template_file(name: str) -> Path:
    """A template of the suite by file name; fails listing the ones there are."""
    path = TEMPLATES_DIR / name
    known = ", ".join(sorted(item.name for item in TEMPLATES_DIR.glob("*.jinja")))
    expect(path.is_file(), f"no template {name} in {TEMPLATES_DIR}; there are: {known or 'none'}")
    return path


def apply_template(http: HttpClient, messages: list[dict[str, Any]], kwargs: dict[str, Any] | None = None,
                   headers: dict[str, str] | None = None) -> tuple[str, Exchange]:
    """``/apply-template``: the rendered prompt (a non-empty string) and the exchange."""
    body: dict[str, Any] = {"messages": messages}
    if kwargs is not None:
        body["chat_template_kwargs"] = kwargs
    exchange = expect_status(http.post("/apply-template", body, headers=headers), 200)
    prompt = exchange.body.get("prompt") if isinstance(exchange.body, dict) else None
    expect(isinstance(prompt, str) and prompt != "", "/apply-template answered no prompt", exchange)
    return prompt, exchange


def expect_markers(prompt: str, markers: tuple[str, ...], messages: list[dict[str, Any]], exchange: Exchange) -> None:
    """Each marker appears in the rendered prompt, and so does every message's text."""
    for marker in markers:
        expect(marker in prompt, f"the marker {marker!r} is missing from the rendered prompt {prompt!r}", exchange)
    for message in messages:
        expect(message["content"] in prompt, f"the {message['role']} message {message['content']!r} is missing from "
                                             f"the rendered prompt {prompt!r}", exchange)


def template_caps(http: HttpClient, headers: dict[str, str] | None = None) -> tuple[dict[str, Any], Exchange]:
    """``chat_template_caps`` of ``/props`` (a dict of booleans)."""
    exchange = expect_status(http.get("/props", headers=headers), 200)
    caps = exchange.body.get("chat_template_caps") if isinstance(exchange.body, dict) else None
    expect(isinstance(caps, dict) and caps != {}, "/props reports no chat_template_caps", exchange)
    for name, value in caps.items():
        expect(isinstance(value, bool), f"chat_template_caps.{name} is not a boolean: {value!r}", exchange)
    return caps, exchange


def unescape(text: str) -> str:
    """A marker as a step writes it: ``\\n`` stands for a newline."""
    return text.replace("\\n", "\n")
