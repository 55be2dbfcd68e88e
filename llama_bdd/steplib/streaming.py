"""Checks on streamed answers (server-sent events), native and OpenAI-compatible.

Native ``/completion`` streams ``data:`` events with ``stop: false``, each with a piece of ``content`` and
its ``tokens``, then one event with ``stop: true``, the timings and the stop type, and nothing after it.
OpenAI-compatible routes stream chunks of one choice each and end with ``data: [DONE]``.
"""

from __future__ import annotations

from typing import Any

from llama_bdd.client.answers import Completion, OaiCompletion
from llama_bdd.client.completion import expect_native_stream_end

from .core import expect, expect_equal, step
from .core.scenario import last_completion, last_oai_result


def streamed_result(context: Any) -> Completion:
    result = last_completion(context)
    streamed = result.exchange is not None and (
        result.exchange.events is not None or (isinstance(result, OaiCompletion) and result.chunks is not None))
    expect(streamed, "the last answer was not streamed: add 'Given streaming is enabled'", result.exchange)
    return result


@step("the stream ended with its stop event")
def step_native_stream_stop_event(context: Any) -> None:
    """Native stream: the last event has ``stop: true``, ``timings`` and a ``stop_type``; no ``[DONE]`` follows.

    The events before it carry the generated tokens: as many as ``timings.predicted_n``.

        Then the stream ended with its stop event
    """
    result = streamed_result(context)
    expect_native_stream_end(result.exchange)


@step("the stream ended with data: [DONE]")
def step_stream_done(context: Any) -> None:
    """OpenAI stream: the last server-sent event is ``data: [DONE]`` (seen on raw HTTP only).

        Then the stream ended with data: [DONE]
    """
    result = streamed_result(context)
    expect(result.exchange.events is not None,
           "the openai client swallows the [DONE] line: send the request with raw HTTP to check it", result.exchange)
    expect_equal(result.exchange.events[-1].data, "[DONE]", "the last event of the stream", result.exchange)


@step("every stream chunk has one choice")
def step_one_choice_per_chunk(context: Any) -> None:
    """OpenAI stream: every chunk has exactly one choice (a trailing usage chunk has none), all share one id.

        Then every stream chunk has one choice
    """
    result = last_oai_result(context)
    expect(result.chunks is not None, "the last answer was not streamed", result.exchange)
    with_choices = [chunk for chunk in result.chunks if chunk.get("choices")]
    expect(len(with_choices) > 0, "no chunk of the stream has a choice", result.exchange)
    for number, chunk in enumerate(result.chunks, start=1):
        choices = chunk.get("choices") or []
        if not choices:
            expect("usage" in chunk, f"chunk {number} has neither a choice nor usage", result.exchange)
            continue
        expect_equal(len(choices), 1, f"choices in chunk {number}", result.exchange)
    expect_equal(len({chunk.get("id") for chunk in result.chunks}), 1, "distinct ids among the chunks", result.exchange)


@step("the last stream chunk carries the usage")
def step_last_chunk_usage(context: Any) -> None:
    """OpenAI stream with ``stream_options.include_usage``: ``usage`` comes in the last chunk, and only there.

        Then the last stream chunk carries the usage
    """
    result = last_oai_result(context)
    expect(result.chunks is not None, "the last answer was not streamed", result.exchange)
    last = result.chunks[-1]
    usage = last.get("usage")
    expect(isinstance(usage, dict), "the last chunk of the stream has no usage", result.exchange)
    for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
        expect(isinstance(usage.get(key), int), f"usage.{key} missing from the last chunk", result.exchange)
    earlier = [number for number, chunk in enumerate(result.chunks[:-1], start=1) if chunk.get("usage")]
    expect(not earlier, f"chunks {earlier} carry usage too; only the last should", result.exchange)


@step("no stream chunk carries usage")
def step_no_chunk_usage(context: Any) -> None:
    """OpenAI stream without ``include_usage``: no chunk has a ``usage`` field.

        Then no stream chunk carries usage
    """
    result = last_oai_result(context)
    expect(result.chunks is not None, "the last answer was not streamed", result.exchange)
    with_usage = [number for number, chunk in enumerate(result.chunks, start=1) if chunk.get("usage")]
    expect(not with_usage, f"chunks {with_usage} carry usage, none was asked for", result.exchange)
