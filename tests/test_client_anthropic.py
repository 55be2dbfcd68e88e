"""The Anthropic Messages client's pure pieces: stream event grammar, stream reassembly, answers, tool inputs."""

import json

import pytest

from llama_bdd.client import anthropic as messages_api
from llama_bdd.harness.http import Exchange
from llama_bdd.harness.sse import parse_sse


def text_stream(*pieces, stop_reason="max_tokens"):
    events = [("message_start", {"type": "message_start", "message": {
        "type": "message", "role": "assistant", "content": [],
        "usage": {"input_tokens": 3, "cache_read_input_tokens": 7, "output_tokens": 0}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text", "text": ""}})]
    events += [("content_block_delta", {"type": "content_block_delta", "index": 0,
                                        "delta": {"type": "text_delta", "text": piece}}) for piece in pieces]
    events += [("content_block_stop", {"type": "content_block_stop", "index": 0}),
               ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop_reason,
                                                                      "stop_sequence": None},
                                  "usage": {"output_tokens": len(pieces)}}),
               ("message_stop", {"type": "message_stop"})]
    return events


def tool_stream(fragments):
    events = text_stream("x")[:1]
    events.append(("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {
        "type": "tool_use", "id": "t1", "name": "get_time"}}))
    events += [("content_block_delta", {"type": "content_block_delta", "index": 0,
                                        "delta": {"type": "input_json_delta", "partial_json": fragment}})
               for fragment in fragments]
    events += text_stream("x", stop_reason="tool_use")[-3:]
    return events


def test_a_well_formed_stream_keeps_the_order_and_reassembles():
    events = text_stream("Hel", "lo")
    assert messages_api.stream_order_violation(events) is None
    message = messages_api.message_from_stream(None, events)
    assert (message.text, message.stop_reason, message.output_tokens) == ("Hello", "max_tokens", 2)
    assert message.prompt_tokens == 10  # input_tokens + cache_read_input_tokens


@pytest.mark.parametrize("change, reason", [
    (lambda e: e[:-1], "must end with message_delta, message_stop"),
    (lambda e: e[1:], "must open with message_start"),
    (lambda e: [x for x in e if x[0] != "content_block_stop"], "block 0 never stopped"),
    (lambda e: [x for x in e if x[0] != "content_block_start"], "while None is open"),
    (lambda e: [x for x in e if x[0] != "content_block_delta"], "stops without a delta"),
    (lambda e: [e[0], e[1], ("content_block_delta", {**e[2][1], "index": 1}), *e[3:]], "a delta for block 1"),
    (lambda e: [e[0], ("content_block_start", {**e[1][1], "index": 1}), *e[2:]], "block 1 starts where block 0"),
    (lambda e: [e[0], e[1], ("ping", e[2][1]), *e[3:]], "is named ping"),
])
def test_a_broken_stream_is_named(change, reason):
    problem = messages_api.stream_order_violation(change(text_stream("a", "b")))
    assert problem is not None and reason in problem


def test_tool_input_json_deltas_reassemble():
    message = messages_api.message_from_stream(None, tool_stream(['{"zo', 'ne": ', '"UTC"}']))
    assert message.tool_uses == [{"type": "tool_use", "id": "t1", "name": "get_time", "input": {"zone": "UTC"}}]
    assert messages_api.stream_order_violation(tool_stream(['{}'])) is None


def test_garbled_tool_input_fails():
    with pytest.raises(AssertionError, match="not JSON"):
        messages_api.message_from_stream(None, tool_stream(['{"zone": ']))


def test_a_text_delta_in_a_tool_block_is_named():
    events = tool_stream(["{}"])
    events[2] = ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                         "delta": {"type": "text_delta", "text": "x"}})
    assert "text_delta in a tool_use block" in messages_api.stream_order_violation(events)


def test_raw_events_keep_their_sse_names():
    text = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in text_stream("a"))
    exchange = Exchange("POST", "http://x/v1/messages", status=200,
                        response_headers={"Content-Type": "text/event-stream"}, response_text=text,
                        events=parse_sse(text))
    assert [name for name, _ in messages_api.raw_stream_events(exchange)][0] == "message_start"
    assert messages_api.raw_message_result(exchange, True).text == "a"


@pytest.mark.parametrize("body, problem", [
    ({"type": "msg"}, "type"),
    ({"type": "message", "role": "user"}, "role"),
    ({"type": "message", "role": "assistant", "content": [{"type": "image"}]}, "content block"),
    ({"type": "message", "role": "assistant", "content": [], "stop_reason": "stop"}, "stop_reason"),
    ({"type": "message", "role": "assistant", "content": [], "stop_reason": "end_turn",
      "usage": {"input_tokens": 1}}, "usage.output_tokens"),
    ({"type": "message", "role": "assistant", "stop_reason": "tool_use", "usage": {},
      "content": [{"type": "tool_use", "id": "a", "name": "f", "input": "{}"}]}, "input must be an object"),
])
def test_a_malformed_message_is_refused(body, problem):
    with pytest.raises(AssertionError, match=problem):
        messages_api.parse_message(None, body)


TOOLS = [{"name": "get_time", "input_schema": {"type": "object", "properties": {"zone": {"type": "string"}},
                                                "required": ["zone"]}}]


@pytest.mark.parametrize("block, problem", [
    ({"name": "get_time", "input": {"zone": "UTC"}}, None),
    ({"name": "get_date", "input": {}}, "not one of the tools"),
    ({"name": "get_time", "input": {}}, "does not validate"),
    ({"name": "get_time", "input": {"zone": 3}}, "does not validate"),
])
def test_tool_inputs_are_validated_with_jsonschema(block, problem):
    found = messages_api.tool_input_violation(block, TOOLS)
    assert found is None if problem is None else problem in found


def test_tool_results_replace_the_prefill():
    answer = messages_api.parse_message(None, {"type": "message", "role": "assistant", "stop_reason": "tool_use",
                                               "usage": {"input_tokens": 1, "output_tokens": 1},
                                               "content": [{"type": "tool_use", "id": "t1", "name": "get_time",
                                                            "input": {"zone": "UTC"}}]})
    turns = messages_api.continue_with_tool_results(
        [{"role": "user", "content": "time?"}, {"role": "assistant", "content": "<tool_call>\n"}], answer, "noon",
        is_error=True)
    assert [turn["role"] for turn in turns] == ["user", "assistant", "user"]
    assert turns[2]["content"][0] == {"type": "tool_result", "tool_use_id": "t1", "is_error": True,
                                      "content": [{"type": "text", "text": "noon"}]}


def test_sdk_arguments_put_sampling_options_in_extra_body():
    payload = messages_api.messages_payload([{"role": "user", "content": "hi"}], 4, model="m", system="s",
                                            stream=True, fields={"temperature": 0, "top_k": 1, "metadata": {}})
    arguments = messages_api.sdk_arguments(payload)
    assert arguments["extra_body"] == {"temperature": 0, "top_k": 1}
    assert "stream" not in arguments and arguments["metadata"] == {}
    assert "max_tokens" not in messages_api.count_tokens_payload(payload)
