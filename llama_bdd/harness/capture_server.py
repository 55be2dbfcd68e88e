"""A small HTTP server on 127.0.0.1 that records the requests it gets: the target the CORS proxy scenarios
send llama-server to (nothing outside the machine is ever reached). Started and stopped by the scenario."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CAPTURE_BODY = b"captured by llama-bdd"


@dataclass
class CapturedRequest:
    method: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)  # names lower-cased


class CaptureServer:
    """``start()`` binds a free port on 127.0.0.1 and serves on a daemon thread; ``stop()`` is bounded."""

    def __init__(self) -> None:
        self.requests: list[CapturedRequest] = []
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "the capture server is not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> "CaptureServer":
        captured = self.requests

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                captured.append(CapturedRequest(self.command, self.path,
                                                {name.lower(): value for name, value in self.headers.items()}))
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(CAPTURE_BODY)))
                self.end_headers()
                self.wfile.write(CAPTURE_BODY)

            do_GET = do_POST = _answer

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1},
                                        name="llama-bdd-capture", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
