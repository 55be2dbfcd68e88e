"""Server-sent events parsing."""

from llama_bdd.harness.http import Exchange, redact_headers
from llama_bdd.harness.sse import parse_sse


def test_data_events_and_done():
    text = 'data: {"a": 1}\n\ndata: {"a": 2}\n\n: keep-alive\n\ndata: [DONE]\n\n'
    events = parse_sse(text)
    assert [e.data for e in events] == ['{"a": 1}', '{"a": 2}', "[DONE]"]


def test_multiline_data_event_name_and_error_field():
    events = parse_sse('event: message\ndata: line1\ndata: line2\n\nerror: {"code": 500}\n\n')
    assert events[0].event == "message" and events[0].data == "line1\nline2"
    assert events[1].fields == {"error": '{"code": 500}'}


def test_exchange_curl_masks_keys():
    exchange = Exchange("POST", "http://127.0.0.1:1/completion",
                        {"Authorization": "Bearer s3cret", "X-Api-Key": "k2", "Origin": "o"}, b'{"prompt": "hi"}')
    curl = exchange.curl()
    assert "s3cret" not in curl and "k2" not in curl and "Bearer ***" in curl
    assert curl.startswith("curl -sS -X POST http://127.0.0.1:1/completion") and "--data-raw" in curl
    assert redact_headers({"authorization": ""}) == {"authorization": ""}


def test_the_reader_completes_events_across_reads_and_keeps_split_characters_whole():
    from llama_bdd.harness.sse import SseReader

    reader = SseReader()
    whole = 'data: {"t": "caf\u00e9"}\r\n\r\ndata: [DONE]\n\n'.encode()
    split = whole.index("\u00e9".encode()) + 1  # inside the two bytes of the e-acute
    assert reader.feed(whole[:split]) == []
    events = reader.feed(whole[split:])
    assert [event.data for event in events] == ['{"t": "caf\u00e9"}', "[DONE]"]
    assert reader.text == whole.decode()
