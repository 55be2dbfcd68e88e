"""The Responses client's pure pieces: answers, stream event order, deltas, the conversation it renders."""

import pytest

from llama_bdd.client import responses as responses_api


def answer_body(text="Hello", status="completed", usage=(5, 2)):
    return {"object": "response", "status": status, "output": [
        {"type": "message", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": text}]}],
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1], "total_tokens": sum(usage)}}


def stream(*pieces):
    events = [("response.created", {"type": "response.created"}),
              ("response.output_item.added", {"type": "response.output_item.added"})]
    events += [("response.output_text.delta", {"type": "response.output_text.delta", "delta": piece})
               for piece in pieces]
    events += [("response.output_text.done", {"type": "response.output_text.done"}),
               ("response.completed", {"type": "response.completed", "response": answer_body("".join(pieces))})]
    return events


def test_a_response_parses():
    answer = responses_api.parse_response(None, answer_body("Hi"))
    assert (answer.output_text, answer.status, answer.usage["total_tokens"]) == ("Hi", "completed", 7)


@pytest.mark.parametrize("body, problem", [
    ({**answer_body(), "object": "chat.completion"}, "object"),
    ({**answer_body(), "output": []}, "output"),
    ({**answer_body(), "usage": {"input_tokens": 5, "output_tokens": 2, "total_tokens": 8}}, "total_tokens"),
    ({**answer_body(), "usage": {"input_tokens": 5, "total_tokens": 5}}, "output_tokens"),
])
def test_a_malformed_response_is_refused(body, problem):
    with pytest.raises(AssertionError, match=problem):
        responses_api.parse_response(None, body)


def test_a_stream_keeps_the_order_and_its_deltas_make_the_text():
    answer = responses_api.answer_from_stream(None, stream("Hel", "lo"))
    assert responses_api.stream_order_violation(answer.events) is None
    assert answer.deltas_text == answer.output_text == "Hello"


@pytest.mark.parametrize("change, reason", [
    (lambda e: e[1:], "open with response.created"),
    (lambda e: e[:-1] + [e[-2]], "end with response.completed"),
    (lambda e: [x for x in e if x[0] != "response.output_text.delta"], "no response.output_text.delta"),
    (lambda e: [e[0], ("response.created", e[1][1]), *e[2:]], "is named response.created"),
])
def test_a_broken_stream_is_named(change, reason):
    problem = responses_api.stream_order_violation(change(stream("a", "b")))
    assert problem is not None and reason in problem


def test_a_stream_without_its_completed_event_fails():
    with pytest.raises(AssertionError, match="one response.completed"):
        responses_api.answer_from_stream(None, stream("a")[:-1])


def test_the_rendered_conversation_follows_the_server_conversion():
    payload = responses_api.responses_payload(
        [{"role": "user", "content": "Hi"},
         {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Hello!"}]}],
        4, model="m", instructions="Be brief.")
    assert responses_api.chat_messages_of(payload) == [
        {"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello!"}]
    assert "max_output_tokens" not in responses_api.input_tokens_payload(payload)
    assert responses_api.chat_messages_of(responses_api.responses_payload("Yo", None, model="m")) == [
        {"role": "user", "content": "Yo"}]
