"""EventWatch reads an endless event stream while the caller goes on, and stops when asked."""

import http.server
import threading
import time

import pytest

from llama_bdd.harness.http import BackgroundLoop, EventWatch


class _EndlessEvents(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - the base class's name
        if self.path != "/models/sse":
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for number in range(3):
            self.wfile.write(f'data: {{"model": "alpha", "event": "model_status", "n": {number}}}\n\n'.encode())
            self.wfile.flush()
            time.sleep(0.05)
        time.sleep(30)  # an endless stream: only the watch's stop (or its limit) ends it

    def log_message(self, *args):
        pass


@pytest.fixture()
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _EndlessEvents)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture()
def loop():
    background = BackgroundLoop()
    yield background
    background.close()


def test_events_arrive_while_the_stream_runs_and_stop_ends_it(server, loop):
    watch = EventWatch(loop, server + "/models/sse", limit=60)
    assert watch.wait_for(lambda events: len(events) == 3, timeout=10)
    assert not watch.future.done()  # still open
    started = time.monotonic()
    exchange = watch.stop()
    assert time.monotonic() - started < 5
    assert watch.future.done()
    assert exchange.status == 200 and len(exchange.events) == 3
    assert '"n": 2' in exchange.response_text


def test_a_missing_route_ends_the_watch_with_its_status(server, loop):
    watch = EventWatch(loop, server + "/nothing", limit=60)
    assert not watch.wait_for(lambda events: bool(events), timeout=10)
    assert watch.stop().status == 404


def test_the_limit_bounds_an_endless_stream(server, loop):
    watch = EventWatch(loop, server + "/models/sse", limit=1)
    watch.future.result(timeout=10)
    assert watch.exchange.error and "Timeout" in watch.exchange.error
    assert len(watch.exchange.events) == 3
