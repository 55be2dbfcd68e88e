"""Pure pieces of the tool, reasoning, logprobs, schema and infill clients, without a server."""

from __future__ import annotations

import json

import pytest

from llama_bdd.client import logprobs, reasoning, tools
from llama_bdd.client.answers import OaiCompletion
from llama_bdd.client.infill import InfillDraft, unescape
from llama_bdd.client.schema import expect_json_answer, response_format_field, schema_violations


def plain(message: dict, finish: str = "tool_calls") -> OaiCompletion:
    body = {"choices": [{"message": message, "finish_reason": finish}], "usage": {"completion_tokens": 3}}
    return OaiCompletion(content=message.get("content") or "", predicted_n=3, finish_reason=finish, raw=body,
                         usage=body["usage"])


def streamed(deltas: list[dict], finish: str = "tool_calls") -> OaiCompletion:
    chunks = [{"choices": [{"delta": delta, "finish_reason": None}]} for delta in deltas]
    chunks.append({"choices": [{"delta": {}, "finish_reason": finish}]})
    return OaiCompletion(content="", predicted_n=len(deltas), finish_reason=finish, chunks=chunks)


CALL = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}


def test_stream_fragments_reassemble_to_the_plain_calls() -> None:
    stream = streamed([
        {"tool_calls": [{"index": 0, "id": "x9", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": '{"city": '}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": '"Paris"}'}}]},
    ])
    same, detail = tools.same_calls(tools.calls_of(plain({"tool_calls": [CALL]})), tools.calls_of(stream))
    assert same, detail
    assert tools.expect_valid_calls(stream, [tools.TOOLS["get_weather"]])[0].id == "x9"


@pytest.mark.parametrize("call, problem", [
    ({**CALL, "function": {"name": "get_time", "arguments": "{}"}}, "not one of the offered tools"),
    ({**CALL, "function": {"name": "get_weather", "arguments": '{"city": '}}, "are not JSON"),
    ({**CALL, "function": {"name": "get_weather", "arguments": '{"town": "Paris"}'}}, "break its schema"),
    ({**CALL, "id": ""}, "has no id"),
])
def test_bad_calls_fail(call: dict, problem: str) -> None:
    with pytest.raises(AssertionError, match=problem):
        tools.expect_valid_calls(plain({"tool_calls": [call]}), [tools.TOOLS["get_weather"]])


def test_a_call_needs_finish_reason_tool_calls_and_no_call_needs_stop() -> None:
    with pytest.raises(AssertionError, match="finish_reason"):
        tools.expect_valid_calls(plain({"tool_calls": [CALL]}, finish="stop"), [tools.TOOLS["get_weather"]])
    with pytest.raises(AssertionError, match="calls tools"):
        tools.expect_no_calls(plain({"content": "hi", "tool_calls": [CALL]}, finish="stop"))
    tools.expect_no_calls(plain({"content": "hi"}, finish="length"))


def test_tool_choice_and_names() -> None:
    assert tools.tool_names("get_weather and get_time") == ["get_weather", "get_time"]
    assert tools.tool_choice_field("required") == "required"
    assert tools.tool_choice_field("get_time") == {"type": "function", "function": {"name": "get_time"}}


def test_reasoning_parts_plain_and_streamed() -> None:
    message = {"content": "4", "reasoning_content": "adding"}
    assert reasoning.parts_of(plain(message, "stop")) == reasoning.AnswerParts("adding", "4")
    stream = streamed([{"reasoning_content": "add"}, {"reasoning_content": "ing"}, {"content": "4"}], "stop")
    assert reasoning.parts_of(stream) == reasoning.AnswerParts("adding", "4")
    reasoning.expect_reasoning_separated(stream)
    with pytest.raises(AssertionError, match="still shows"):
        reasoning.expect_reasoning_separated(plain({"content": "</think>4", "reasoning_content": "x"}, "stop"))
    reasoning.expect_reasoning_in_content(plain({"content": "<think>\nx"}, "stop"))
    with pytest.raises(AssertionError, match="no content"):
        reasoning.expect_thinking_closed(plain({"content": "", "reasoning_content": "think>"}, "stop"))


def entry(token_id: int, logprob: float, top: list[tuple[int, float]]) -> dict:
    return {"id": token_id, "token": f"t{token_id}", "logprob": logprob,
            "top_logprobs": [{"id": i, "token": f"t{i}", "logprob": lp} for i, lp in top]}


def with_logprobs(entries: list[dict]) -> OaiCompletion:
    result = plain({"content": "".join(e["token"] for e in entries)}, "length")
    result.raw["choices"][0]["logprobs"] = {"content": entries}
    result.usage = {"completion_tokens": len(entries)}
    return result


def test_logprobs_checks() -> None:
    good = [entry(1, -0.1, [(1, -0.1), (2, -2.0)]), entry(3, -0.5, [(3, -0.5), (4, -1.0)])]
    logprobs.expect_oai_logprobs(with_logprobs(good), 2, greedy=True)
    with pytest.raises(AssertionError, match="not sorted"):
        logprobs.expect_oai_logprobs(with_logprobs([entry(1, -0.1, [(2, -2.0), (1, -0.1)])]), 2, greedy=False)
    with pytest.raises(AssertionError, match="above 0"):
        logprobs.expect_oai_logprobs(with_logprobs([entry(1, 0.3, [(1, 0.3), (2, -1.0)])]), 2, greedy=False)
    with pytest.raises(AssertionError, match="number of top_logprobs"):
        logprobs.expect_oai_logprobs(with_logprobs(good), 3, greedy=False)
    with pytest.raises(AssertionError, match="no logprobs"):
        logprobs.expect_oai_logprobs(plain({"content": "x"}, "length"), 2, greedy=False)


def test_schema_and_response_format() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 9}}, "required": ["n"]}
    assert schema_violations({"n": 3}, schema) == []
    assert schema_violations({"n": 30}, schema) == ["$.n: 30 is greater than the maximum of 9"]
    assert schema_violations({}, {"type": "nothing"})[0].startswith("the schema itself is invalid")
    assert expect_json_answer('{"n": 1}', response_format_field(schema)) == {"n": 1}
    with pytest.raises(AssertionError, match="breaks the requested schema"):
        expect_json_answer("[1]", response_format_field(None))
    with pytest.raises(AssertionError, match="not JSON"):
        expect_json_answer("{", response_format_field(None))


def test_infill_draft() -> None:
    assert unescape('"a\\nb"') == "a\nb"
    assert unescape("}\\n") == "}\n"
    draft = InfillDraft(prefix="p", suffix="s")
    draft.set_extra("x.h", "int x;\\n")
    assert draft.payload({"prompt": ""})["input_extra"] == [{"filename": "x.h", "text": "int x;\n"}]
    draft.set_extra("none", "none")
    assert "input_extra" not in draft.payload({})
    assert json.dumps(draft.payload({}))
