"""HTTP clients for the server under test, recording every exchange for failure reports.

``HttpClient`` is synchronous (requests); ``BackgroundLoop`` runs aiohttp requests on an event loop in a
thread of its own, so that concurrent requests keep running between behave steps. Both return
``Exchange`` objects: the request (renderable as a ready-to-paste ``curl`` command, secrets masked) and
what came back.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import shlex
import ssl
import tempfile
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Coroutine, Mapping

import aiohttp
import requests

from .sse import SseEvent, SseReader, parse_sse
from .timing import timed

DEFAULT_TIMEOUT = 120.0
SECRET_HEADERS = frozenset({"authorization", "x-api-key"})


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    redacted = {}
    for name, value in headers.items():
        if name.lower() in SECRET_HEADERS:
            scheme = value.split(" ", 1)[0] + " " if " " in value else ""
            value = f"{scheme}***" if value else value
        redacted[name] = value
    return redacted


@dataclass
class Exchange:
    """One HTTP request and what came back (``error`` is set when nothing came back)."""

    method: str
    url: str
    request_headers: dict[str, str] = field(default_factory=dict)
    request_body: bytes | None = None
    status: int | None = None
    response_headers: dict[str, str] = field(default_factory=dict)
    response_text: str = ""
    error: str | None = None
    elapsed: float = 0.0
    events: list[SseEvent] | None = None  # set for streamed (text/event-stream) responses
    # why an idempotent request was sent a second time (the server closed the connection without answering)
    retried: str | None = None
    started_at: float = field(default_factory=time.monotonic)  # orders exchanges from every client

    def header(self, name: str) -> str | None:
        for key, value in self.response_headers.items():
            if key.lower() == name.lower():
                return value
        return None

    @property
    def body(self) -> Any:
        """The response parsed as JSON; an AssertionError naming the exchange when it is not JSON."""
        try:
            return json.loads(self.response_text)
        except ValueError:
            raise AssertionError(f"expected a JSON response body\n{self.describe()}") from None

    def data_events(self) -> list[Any]:
        """The JSON payloads of a stream's ``data:`` events, without the ``[DONE]`` terminator."""
        return [json.loads(event.data) for event in self.events or [] if event.data != "[DONE]"]

    def curl(self) -> str:
        parts = ["curl", "-sS", "-X", self.method, self.url]
        for name, value in redact_headers(self.request_headers).items():
            parts += ["-H", f"{name}: {value}"]
        if self.request_body is not None:
            parts += ["--data-raw", _printable(self.request_body)]
        return shlex.join(parts)

    def describe(self, limit: int = 2000) -> str:
        """Request as curl, then status, headers and (truncated) body of the response."""
        lines = [f"request:  {_truncate(self.curl(), limit)}"]
        if self.error:
            lines.append(f"response: none ({self.error}) after {self.elapsed:.2f}s")
            return "\n".join(lines)
        if self.retried:
            lines.append(f"retried:  sent again on a new connection after {self.retried}")
        lines.append(f"response: HTTP {self.status} after {self.elapsed:.2f}s")
        for name, value in self.response_headers.items():
            lines.append(f"  {name}: {value}")
        lines.append(f"  body: {_truncate(self.response_text, limit)}")
        return "\n".join(lines)


def _printable(body: bytes) -> str:
    """A request body as text for a report; binary bodies (a multipart WAV upload) only by their size."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is None or "\x00" in text:
        return f"<{len(body)} bytes of binary data>"
    return text


def _truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [{len(text) - limit} more characters]"


def _encode(json_body: Any, raw_body: bytes | str | None) -> bytes | None:
    if raw_body is not None:
        return raw_body.encode() if isinstance(raw_body, str) else raw_body
    if json_body is not None:
        return json.dumps(json_body).encode()
    return None


def _request_headers(headers: Mapping[str, str] | None, body: bytes | None) -> dict[str, str]:
    merged = dict(headers or {})
    if body is not None and not any(k.lower() == "content-type" for k in merged):
        merged["Content-Type"] = "application/json"
    return merged


def _read_within(response: requests.Response, deadline: float) -> bytes:
    """The whole body, unless it is still coming at ``deadline`` (a per-read timeout alone would not stop
    a server that keeps streaming tokens)."""
    chunks = []
    for chunk in response.iter_content(chunk_size=65536):
        chunks.append(chunk)
        if time.monotonic() > deadline:
            raise requests.Timeout("the answer was still arriving when the request's time limit ran out")
    return b"".join(chunks)


# Certificate authorities the suite made itself (TLS scenarios): servers whose certificates they signed are
# verified against them, besides the system's own. One context for every aiohttp and httpx client, so a CA
# trusted later reaches clients made earlier; requests takes a bundle file instead.
_TRUSTED_CAS: list[str] = []
_TLS_CONTEXT: ssl.SSLContext | None = None
_CA_BUNDLE: str | None = None


def tls_context() -> ssl.SSLContext:
    """The SSL context of the suite's clients: the system's CAs and every CA the suite trusts."""
    global _TLS_CONTEXT
    if _TLS_CONTEXT is None:
        _TLS_CONTEXT = ssl.create_default_context()
        for pem in _TRUSTED_CAS:
            _TLS_CONTEXT.load_verify_locations(cadata=pem)
    return _TLS_CONTEXT


def trust_certificate_authority(ca_pem: str) -> None:
    """Verify https servers against this CA (PEM text) as well, in every client the harness makes."""
    global _CA_BUNDLE
    if ca_pem in _TRUSTED_CAS:
        return
    _TRUSTED_CAS.append(ca_pem)
    if _TLS_CONTEXT is not None:
        _TLS_CONTEXT.load_verify_locations(cadata=ca_pem)
    with tempfile.NamedTemporaryFile("w", prefix="llama-bdd-ca-", suffix=".pem", delete=False) as bundle:
        bundle.write("\n".join(_TRUSTED_CAS))
    if _CA_BUNDLE is not None:
        os.unlink(_CA_BUNDLE)
    else:
        atexit.register(lambda: _CA_BUNDLE and os.path.exists(_CA_BUNDLE) and os.unlink(_CA_BUNDLE))
    _CA_BUNDLE = bundle.name


def tls_verification() -> bool | str:
    """What requests' ``verify`` takes: the bundle of the suite's own CAs once there is one, else True."""
    return _CA_BUNDLE or True


def loopback_session() -> requests.Session:
    """A requests session that never routes through a proxy from the environment (nor looks one up); https
    answers are verified against the suite's own CAs (see ``trust_certificate_authority``)."""
    session = requests.Session()
    session.trust_env = False
    session.verify = tls_verification()
    return session


IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})


def _closed_before_answering(error: requests.ConnectionError) -> bool:
    """Whether the server closed the connection without answering (not a refused or timed-out connection)."""
    text = str(error)
    return "RemoteDisconnected" in text or "Connection reset by peer" in text


class HttpClient:
    """Synchronous requests to one server; every exchange is kept in ``history``."""

    def __init__(self, base_url: str, timeout: float = DEFAULT_TIMEOUT):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.history: list[Exchange] = []
        self._session = loopback_session()

    def close(self) -> None:
        self._session.close()

    def request(self, method: str, path: str, json_body: Any = None, *, raw_body: bytes | str | None = None,
                headers: Mapping[str, str] | None = None, params: Mapping[str, Any] | None = None,
                timeout: float | None = None, record: bool = True) -> Exchange:
        """Send one request; ``record=False`` keeps polling requests out of ``history``."""
        body = _encode(json_body, raw_body)
        headers = _request_headers(headers, body)
        url = self.base_url + path
        if params:
            url = requests.Request(method, url, params=params).prepare().url
        exchange = Exchange(method=method, url=url, request_headers=headers, request_body=body)
        started = time.monotonic()
        try:
            limit = timeout or self.timeout
            with timed("http"):
                try:
                    response = self._session.request(method, url, data=body, headers=headers, timeout=limit,
                                                     stream=True)
                except requests.ConnectionError as error:
                    if method.upper() not in IDEMPOTENT_METHODS or not _closed_before_answering(error):
                        raise
                    # the server closed the kept-alive connection as the request went out on it: an idempotent
                    # request is sent once more, on a new connection (RFC 9112, 9.3.1), as clients do
                    exchange.retried = f"{type(error).__name__}: {error}"
                    response = self._session.request(method, url, data=body, headers=headers, timeout=limit,
                                                     stream=True)
                exchange.status = response.status_code
                exchange.response_headers = dict(response.headers)
                raw = _read_within(response, started + limit)
            response.close()
            exchange.response_text = raw.decode("utf-8", errors="replace")
            if "text/event-stream" in response.headers.get("Content-Type", ""):
                exchange.events = parse_sse(exchange.response_text)
        except requests.RequestException as error:
            exchange.error = f"{type(error).__name__}: {error}"
        exchange.elapsed = time.monotonic() - started
        if record:
            self.history.append(exchange)
        return exchange

    def get(self, path: str, **kwargs: Any) -> Exchange:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, json_body: Any = None, **kwargs: Any) -> Exchange:
        return self.request("POST", path, json_body, **kwargs)


async def async_request(method: str, url: str, json_body: Any = None, *, headers: Mapping[str, str] | None = None,
                        raw_body: bytes | str | None = None, timeout: float = DEFAULT_TIMEOUT) -> Exchange:
    """One request through aiohttp; streamed responses are parsed into events as they arrive."""
    body = _encode(json_body, raw_body)
    headers = _request_headers(headers, body)
    exchange = Exchange(method=method, url=url, request_headers=headers, request_body=body)
    started = time.monotonic()
    try:
        client_timeout = aiohttp.ClientTimeout(total=timeout)
        async with aiohttp.ClientSession(timeout=client_timeout) as session:
            tls = tls_context() if url.startswith("https:") else None
            async with session.request(method, url, data=body, headers=headers, ssl=tls) as response:
                exchange.status = response.status
                exchange.response_headers = dict(response.headers)
                raw = await response.read()
                exchange.response_text = raw.decode("utf-8", errors="replace")
                if "text/event-stream" in response.headers.get("Content-Type", ""):
                    exchange.events = parse_sse(exchange.response_text)
    except (aiohttp.ClientError, asyncio.TimeoutError) as error:
        exchange.error = f"{type(error).__name__}: {error}"
    exchange.elapsed = time.monotonic() - started
    return exchange


class EventWatch:
    """An endless event stream (``GET /models/sse``) read on the background loop: its events arrive in
    ``events`` (and its text in ``exchange.response_text``) while the steps go on. Bounded by ``limit``
    seconds; ``stop`` ends it sooner and answers the exchange so far (for failure reports)."""

    def __init__(self, loop: BackgroundLoop, url: str, headers: Mapping[str, str] | None = None,
                 limit: float = DEFAULT_TIMEOUT) -> None:
        self.events: list[SseEvent] = []
        self.exchange = Exchange(method="GET", url=url, request_headers=dict(headers or {}), events=self.events)
        # set once the response headers are in (or the request failed): events sent from then on are seen
        self._answered = threading.Event()
        # set when the reading coroutine has really ended (a cancelled Future says so before it has)
        self._finished = threading.Event()
        self.future = loop.submit(self._read(url, dict(headers or {}), limit))

    async def _read(self, url: str, headers: dict[str, str], limit: float) -> None:
        started = time.monotonic()
        reader = SseReader()
        try:
            timeout = aiohttp.ClientTimeout(total=limit, sock_connect=10)
            async with aiohttp.ClientSession(timeout=timeout) as session:
                tls = tls_context() if url.startswith("https:") else None
                async with session.get(url, headers=headers, ssl=tls) as response:
                    self.exchange.status = response.status
                    self.exchange.response_headers = dict(response.headers)
                    self._answered.set()
                    async for chunk in response.content.iter_any():
                        self.events.extend(reader.feed(chunk))
                        self.exchange.response_text = reader.text
                        self.exchange.elapsed = time.monotonic() - started
        except (aiohttp.ClientError, asyncio.TimeoutError) as error:
            self.exchange.error = f"{type(error).__name__}: {error}"
        finally:
            self.exchange.elapsed = time.monotonic() - started
            self._answered.set()
            self._finished.set()

    def wait_answered(self, timeout: float) -> bool:
        """Whether the server answered the request (headers in, or a failure) within ``timeout`` seconds."""
        return self._answered.wait(timeout)

    def wait_for(self, predicate: Any, timeout: float) -> bool:
        """Whether ``predicate(events)`` held within ``timeout`` seconds; once the stream has ended, whether it
        holds for the events it brought."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(list(self.events)):
                return True
            if self._finished.is_set():
                return bool(predicate(list(self.events)))
            time.sleep(0.05)
        return False

    def stop(self, timeout: float = 5.0) -> Exchange:
        """Cancel the reading and wait (up to ``timeout``) until it has ended; the exchange so far."""
        self.future.cancel()
        if not self._finished.wait(timeout) and self.exchange.error is None:
            self.exchange.error = f"the event stream was still open {timeout:.0f}s after it was cancelled"
        return self.exchange


class BackgroundLoop:
    """An asyncio event loop on a daemon thread: coroutines submitted here run while steps go on."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="llama-bdd-http", daemon=True)
        self._thread.start()

    def submit(self, coroutine: Coroutine[Any, Any, Any]) -> Future:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop)

    def close(self) -> None:
        if self._loop.is_running():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5)
