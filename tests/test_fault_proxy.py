"""The lying proxy: it forwards requests and changes exactly what the fault says, plain and streamed."""

import json

import pytest
import requests
from aiohttp import web

from llama_bdd.harness.errors import HarnessError
from llama_bdd.harness.fault_proxy import mutate_body, mutate_event, parse_faults, start_fault_proxy
from llama_bdd.harness.http import BackgroundLoop


def test_faults_parse_with_quoting_and_are_checked():
    faults = parse_faults("/v1/messages set stop_reason '\"max_tokens\"'; /v1/* drop-event message_stop")
    assert [(f.route, f.action, f.args) for f in faults] == [
        ("/v1/messages", "set", ("stop_reason", '"max_tokens"')), ("/v1/*", "drop-event", ("message_stop",))]
    with pytest.raises(HarnessError):
        parse_faults("/x explode now")
    with pytest.raises(HarnessError):
        parse_faults("/x set only-a-field")
    with pytest.raises(HarnessError, match="not JSON"):
        parse_faults('/x set choices.0.finish_reason "stop"')  # the shell ate the quotes: stop is no JSON


def test_json_actions_change_one_field():
    body = json.dumps({"usage": {"input_tokens": 5}, "content": [{"text": "a"}], "stop_reason": "end_turn"})
    assert json.loads(mutate_body(body, parse_faults('/ add usage.input_tokens 1')))["usage"]["input_tokens"] == 6
    assert json.loads(mutate_body(body, parse_faults('/ set content.0.text \'"b"\'')))["content"][0]["text"] == "b"
    assert "stop_reason" not in json.loads(mutate_body(body, parse_faults("/ delete stop_reason")))
    assert mutate_body(body, parse_faults("/ delete no.such.field")) == body


def test_stream_events_are_dropped_by_name_or_type():
    named = 'event: message_stop\ndata: {"type": "message_stop"}'
    typed = 'data: {"type": "response.completed"}'
    assert mutate_event(named, parse_faults("/ drop-event message_stop")) is None
    assert mutate_event(typed, parse_faults("/ drop-event response.completed")) is None
    assert mutate_event(typed, parse_faults("/ drop-event other")) == typed
    changed = mutate_event('data: {"choices": [{"finish_reason": "stop"}]}',
                           parse_faults('/ set choices.0.finish_reason \'"length"\''))
    assert json.loads(changed[len("data: "):]) == {"choices": [{"finish_reason": "length"}]}


def test_the_proxy_lies_on_matching_routes_only():
    async def answer(request):
        if request.path == "/stream":
            response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await response.prepare(request)
            for kind in ("start", "delta", "stop"):
                await response.write(f'event: {kind}\ndata: {{"type": "{kind}"}}\n\n'.encode())
            await response.write_eof()
            return response
        return web.json_response({"path": request.path, "n": 1, "echo": (await request.text())})

    loop = BackgroundLoop()
    try:
        async def serve():
            runner = web.AppRunner(web.Application())
            runner.app.router.add_route("*", "/{tail:.*}", answer)
            await runner.setup()
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            return runner, site._server.sockets[0].getsockname()[1]

        runner, port = loop.submit(serve()).result(timeout=10)
        proxy = start_fault_proxy(f"http://127.0.0.1:{port}", parse_faults("/lie add n 1; /stream drop-event delta"),
                                  loop)
        with requests.Session() as session:
            session.trust_env = False
            assert session.post(f"{proxy.base_url}/lie", data="hi", timeout=5).json() == {
                "path": "/lie", "n": 2, "echo": "hi"}
            assert session.get(f"{proxy.base_url}/truth", timeout=5).json()["n"] == 1
            streamed = session.get(f"{proxy.base_url}/stream", timeout=5).text
        assert "event: start" in streamed and "event: stop" in streamed and "delta" not in streamed
        assert proxy.applied == 2
        loop.submit(proxy.stop()).result(timeout=10)
        loop.submit(runner.cleanup()).result(timeout=10)
    finally:
        loop.close()
