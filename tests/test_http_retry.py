"""A server that closes a kept-alive connection without answering: an idempotent request is sent once more on a
new connection, and the exchange says so; any other request fails as it happened."""

import socket
import threading

import pytest

from llama_bdd.harness.http import HttpClient


def _serve(listener, hang_ups):
    """Answer each connection's requests with 200 'ok'; the first ``hang_ups`` requests get the socket closed."""
    remaining = [hang_ups]

    def handle(connection):
        with connection:
            while True:
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = connection.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                if remaining[0] > 0:
                    remaining[0] -= 1
                    return  # closed without an answer
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok")

    while True:
        try:
            connection, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=handle, args=(connection,), daemon=True).start()


@pytest.fixture()
def server():
    def start(hang_ups):
        listener = socket.create_server(("127.0.0.1", 0))
        threading.Thread(target=_serve, args=(listener, hang_ups), daemon=True).start()
        started.append(listener)
        return f"http://127.0.0.1:{listener.getsockname()[1]}"

    started = []
    yield start
    for listener in started:
        listener.close()


def test_an_idempotent_request_is_sent_again_once(server):
    exchange = HttpClient(server(1), timeout=10).get("/health")
    assert exchange.status == 200 and exchange.response_text == "ok"
    assert exchange.retried and "RemoteDisconnected" in exchange.retried
    assert "sent again on a new connection" in exchange.describe()


def test_only_once(server):
    exchange = HttpClient(server(2), timeout=10).get("/health")
    assert exchange.status is None and "RemoteDisconnected" in exchange.error


def test_a_post_is_never_sent_twice(server):
    exchange = HttpClient(server(1), timeout=10).post("/completion", {"prompt": "x"})
    assert exchange.status is None and exchange.retried is None and "Connection aborted" in exchange.error
