"""Chat templates (``--chat-template``, ``--chat-template-file``, ``/apply-template``,
``chat_template_kwargs``, ``chat_template_caps``), reasoning in chat answers, and the chat input-token count.

The knowledge is in ``llama_bdd.client.templates`` and ``llama_bdd.client.reasoning``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from llama_bdd.client import reasoning as reasoning_client
from llama_bdd.client import templates as templates_client
from llama_bdd.client.completion import sent_payload
from llama_bdd.client.openai_api import chat_messages, chat_payload, raw_headers, usage_of
from llama_bdd.harness.http import Exchange

from .core import expect, expect_equal, expect_status, state_of, step
from .core.scenario import last_oai_result, tokenize


@dataclass
class TemplateState:
    """What the template steps remember between steps of a scenario."""

    # the prompt /apply-template rendered, the messages it was given, and its exchange
    rendered: tuple[str, list[dict[str, Any]], Exchange] | None = None
    # streamed chats read with (or without) a control request, in order
    streams: list[reasoning_client.ControlledStream] = field(default_factory=list)


def rendered(context: Any) -> tuple[str, list[dict[str, Any]], Exchange]:
    entry = state_of(context).part(TemplateState).rendered
    expect(entry is not None, "nothing rendered yet: add 'When the template renders the prompts' first")
    return entry


@step("the chat template file {name}")
def step_template_file(context: Any, name: str) -> None:
    """Serve with ``--chat-template-file`` set to one of the suite's templates (``tests/data/templates``).

        Given the chat template file tools-hermes.jinja
    """
    state_of(context).config.options["--chat-template-file"] = str(templates_client.template_file(name))


@step("the built-in chat template {name}")
def step_builtin_template(context: Any, name: str) -> None:
    """Serve with ``--chat-template NAME``, one of the templates built into llama-server.

        Given the built-in chat template chatml
    """
    state_of(context).config.options["--chat-template"] = name


@step("the template renders the prompts")
def step_render(context: Any) -> None:
    """``/apply-template`` renders the system prompt and the last queued user prompt (which stays queued).

        When the template renders the prompts
    """
    render(context, None)


@step("the template renders the prompts with chat_template_kwargs {kwargs}")
def step_render_with_kwargs(context: Any, kwargs: str) -> None:
    """As ``the template renders the prompts``, with this JSON object as ``chat_template_kwargs``.

        When the template renders the prompts with chat_template_kwargs {"house_style": "terse"}
    """
    render(context, json.loads(kwargs))


def render(context: Any, kwargs: dict[str, Any] | None) -> None:
    state = state_of(context)
    expect(bool(state.request.prompts), "no user prompt queued: add 'Given a user prompt ...' first")
    messages = chat_messages(state.request, state.request.prompts[-1])
    prompt, exchange = templates_client.apply_template(state.client(), messages, kwargs,
                                                       headers=state.request.auth_headers())
    state.results.last = exchange
    state.part(TemplateState).rendered = (prompt, messages, exchange)


@step("the rendered prompt shows the {family} markers")
def step_family_markers(context: Any, family: str) -> None:
    """The rendered prompt has the turn markers of this template family, and every message's text.

        Then the rendered prompt shows the chatml markers
    """
    prompt, messages, exchange = rendered(context)
    markers = templates_client.FAMILY_MARKERS.get(family)
    expect(markers is not None, f"unknown family {family}: say one of {', '.join(templates_client.FAMILY_MARKERS)}")
    templates_client.expect_markers(prompt, markers, messages, exchange)


@step('the rendered prompt contains "{text}"')
def step_rendered_contains(context: Any, text: str) -> None:
    """The rendered prompt contains this text (``\\n`` for a newline).

        Then the rendered prompt contains "# Style: terse"
    """
    prompt, _, exchange = rendered(context)
    marker = templates_client.unescape(text)
    expect(marker in prompt, f"{marker!r} is missing from the rendered prompt {prompt!r}", exchange)


@step('the rendered prompt lacks "{text}"')
def step_rendered_lacks(context: Any, text: str) -> None:
    """The rendered prompt does not contain this text (``\\n`` for a newline).

        Then the rendered prompt lacks "# Style:"
    """
    prompt, _, exchange = rendered(context)
    marker = templates_client.unescape(text)
    expect(marker not in prompt, f"{marker!r} should not be in the rendered prompt {prompt!r}", exchange)


@step("the chat template capability {name:w} is {value:w}")
def step_template_capability(context: Any, name: str, value: str) -> None:
    """``/props`` reports ``chat_template_caps.<name>`` as ``true`` or ``false``.

        Then the chat template capability supports_tool_calls is true
    """
    expect(value in ("true", "false"), f"say true or false, not {value!r}")
    state = state_of(context)
    caps, exchange = templates_client.template_caps(state.client(), headers=state.request.auth_headers())
    state.results.last = exchange
    expect(name in caps, f"chat_template_caps has no {name}: {sorted(caps)}", exchange)
    expect_equal(caps[name], value == "true", f"chat_template_caps.{name}", exchange)


# ----------------------------------------------------------------------------------------------
# reasoning
# ----------------------------------------------------------------------------------------------

@step("the answer's reasoning is separated from its content")
def step_reasoning_separated(context: Any) -> None:
    """``reasoning_content`` holds the thinking; no ``<think>`` tag is left in it or in ``content``.

        Then the answer's reasoning is separated from its content
    """
    reasoning_client.expect_reasoning_separated(last_oai_result(context))


@step("the answer keeps its reasoning in the content")
def step_reasoning_in_content(context: Any) -> None:
    """No ``reasoning_content``; ``content`` starts with the ``<think>`` the template opened.

        Then the answer keeps its reasoning in the content
    """
    reasoning_client.expect_reasoning_in_content(last_oai_result(context))


@step("the answer's thinking ended within {n_tokens:d} tokens")
def step_thinking_ended(context: Any, n_tokens: int) -> None:
    """The answer has content after its thinking, no think tag is left, and ``reasoning_content`` (if any)
    is at most N tokens.

        Then the answer's thinking ended within 2 tokens
    """
    result = last_oai_result(context)
    parts = reasoning_client.expect_thinking_closed(result)
    used = len(tokenize(context, parts.reasoning, add_special=False)) if parts.reasoning else 0
    expect(used <= n_tokens, f"reasoning_content is {used} tokens, more than the budget {n_tokens}: "
                             f"{parts.reasoning!r}", result.exchange)


@step("the streamed reasoning and content equal the plain ones")
def step_stream_parts_equal(context: Any) -> None:
    """The last two chat answers (plain, then streamed) have the same ``reasoning_content`` and ``content``.

        Then the streamed reasoning and content equal the plain ones
    """
    completions = state_of(context).results.completions
    expect(len(completions) >= 2, "request the chat twice (plain, then streamed) first")
    plain, streamed = (reasoning_client.parts_of(result) for result in completions[-2:])
    expect_equal(streamed, plain, "reasoning and content (streamed vs plain)", completions[-1].exchange)


# ----------------------------------------------------------------------------------------------
# input tokens
# ----------------------------------------------------------------------------------------------

@step("{path:UrlPath} counts the input tokens of the last chat as its usage does")
def step_input_tokens(context: Any, path: str) -> None:
    """The last chat request's body, sent to an ``input_tokens`` route, answers ``input_tokens`` equal to
    that chat's ``usage.prompt_tokens`` (and ``object`` ``response.input_tokens``).

        Then /v1/chat/completions/input_tokens counts the input tokens of the last chat as its usage does
    """
    state = state_of(context)
    result = last_oai_result(context)
    body = {key: value for key, value in sent_payload(result).items() if key not in ("stream", "stream_options")}
    exchange = expect_status(state.client().post(path, body, headers=state.request.auth_headers()), 200)
    state.results.last = exchange
    expect_equal(exchange.body.get("object"), "response.input_tokens", "object", exchange)
    expect_equal(exchange.body.get("input_tokens"), usage_of(result).get("prompt_tokens"),
                 "input_tokens (the chat's usage.prompt_tokens)", exchange)


# ----------------------------------------------------------------------------------------------
# /v1/chat/completions/control: ending the reasoning of a running chat
# ----------------------------------------------------------------------------------------------

def _controlled_stream(context: Any, after: int | None) -> None:
    state = state_of(context)
    prompts = state.request.prompts
    expect(bool(prompts), "no user prompt queued: add 'Given a user prompt ...' first")
    payload = chat_payload(state.request, prompts[-1])  # left queued: each stream asks the same
    controlled = reasoning_client.stream_with_control(state.client().base_url, payload, raw_headers(state.request),
                                                      state.client(), after)
    state.part(TemplateState).streams.append(controlled)
    state.results.last = controlled.control or controlled.exchange


def _streams(context: Any, count: int) -> list[reasoning_client.ControlledStream]:
    streams = state_of(context).part(TemplateState).streams
    expect(len(streams) >= count, f"this needs {count} streamed chats; the scenario sent {len(streams)}")
    return streams[-count:]


@step("a streamed chat is sent, reasoning_end requested after {count:d} reasoning fragments")
def step_stream_with_reasoning_end(context: Any, count: int) -> None:
    """Stream a chat of the last user prompt (left queued); once this many ``reasoning_content`` fragments
    have arrived, ``POST /v1/chat/completions/control`` ``{"id": <the chat's id>, "action": "reasoning_end"}``
    while the stream goes on; read it to the end.

        When a streamed chat is sent, reasoning_end requested after 2 reasoning fragments
    """
    _controlled_stream(context, count)


@step("a streamed chat is sent with no control request")
def step_stream_without_control(context: Any) -> None:
    """Stream a chat of the last user prompt (left queued) and read it to the end, controlling nothing.

        When a streamed chat is sent with no control request
    """
    _controlled_stream(context, None)


@step("the control answered success {success:w}")
def step_control_answered(context: Any, success: str) -> None:
    """The control request of the last streamed chat answered 200 ``{"success": true|false}``.

        Then the control answered success true
    """
    reasoning_client.expect_control_answer(_streams(context, 1)[0].control, success == "true")


@step('the control answered success false saying "{message}"')
def step_control_refused(context: Any, message: str) -> None:
    """The control request answered 200 ``{"success": false, "message": ...}`` with this text in the message.

        Then the control answered success false saying "reasoning control not enabled"
    """
    reasoning_client.expect_control_answer(_streams(context, 1)[0].control, False, message)


@step("the reasoning ended early and the answer went on as content")
def step_reasoning_ended_early(context: Any) -> None:
    """Of the last 2 streamed chats (the first without control, the last with ``reasoning_end``): the last
    one's reasoning is a shorter start of the first one's, no reasoning comes after its content began, and
    its content is not empty.

        Then the reasoning ended early and the answer went on as content
    """
    whole, controlled = _streams(context, 2)
    reasoning_client.expect_reasoning_cut_short(controlled, whole)


@step("the last 2 streamed chats have the same reasoning and content")
def step_streams_same_parts(context: Any) -> None:
    """The control changed nothing: both streamed chats have the same reasoning and the same content.

        Then the last 2 streamed chats have the same reasoning and content
    """
    first, second = _streams(context, 2)
    expect_equal(second.parts, first.parts, "reasoning and content of the last streamed chat", second.exchange)
