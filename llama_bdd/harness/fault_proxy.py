"""A server that lies: a reverse proxy in front of llama-server that changes one thing in its answers.

A scenario is only worth something if it fails when the server misbehaves. With ``LLAMA_BDD_FAULT`` (or
``-D fault=...``) set, every server the suite starts is reached through this proxy, which forwards each
request unchanged and alters the answers of the matching route:

    LLAMA_BDD_FAULT='/v1/messages set stop_reason "max_tokens"'      set a JSON field (dotted path, list index)
    LLAMA_BDD_FAULT='/v1/chat/* add usage.prompt_tokens 1'           add a number to a JSON field
    LLAMA_BDD_FAULT='/v1/messages delete usage'                      remove a JSON field
    LLAMA_BDD_FAULT='/v1/messages drop-event message_stop'           drop stream events of this name or type
    LLAMA_BDD_FAULT='/props status 500'                              answer with another status
    LLAMA_BDD_FAULT='/v1/responses replace "completed" "incomplete"' replace text in the raw body

The route is a glob on the request path (query excluded). JSON actions apply to a plain JSON answer and to
every ``data:`` event of a stream whose JSON has the field. Several faults are separated by ``;``. Nothing
here is used unless a fault is asked for.
"""

from __future__ import annotations

import asyncio
import fnmatch
import json
import shlex
from dataclasses import dataclass
from typing import Any

import aiohttp
from aiohttp import web

from .errors import HarnessError
from .http import tls_context

ACTIONS = ("set", "add", "delete", "drop-event", "status", "replace")
HOP_HEADERS = frozenset({"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding",
                         "host", "upgrade", "proxy-connection", "te", "trailer"})
UPSTREAM_TIMEOUT = aiohttp.ClientTimeout(total=600, sock_connect=10)


@dataclass(frozen=True)
class Fault:
    """One lie: on requests whose path matches ``route``, do ``action`` with ``args`` to the answer."""

    route: str
    action: str
    args: tuple[str, ...]

    def applies_to(self, path: str) -> bool:
        return fnmatch.fnmatchcase(path, self.route)

    def describe(self) -> str:
        return shlex.join([self.route, self.action, *self.args])


def parse_faults(spec: str) -> list[Fault]:
    """``ROUTE ACTION ARGS...`` separated by ``;`` (shell quoting inside one fault)."""
    faults = []
    for part in filter(None, (piece.strip() for piece in spec.split(";"))):
        words = shlex.split(part)
        if len(words) < 2 or words[1] not in ACTIONS:
            raise HarnessError(f"fault '{part}': write ROUTE ACTION ARGS, ACTION one of {', '.join(ACTIONS)}")
        wanted = {"set": 2, "add": 2, "delete": 1, "drop-event": 1, "status": 1, "replace": 2}[words[1]]
        if len(words) - 2 != wanted:
            raise HarnessError(f"fault '{part}': {words[1]} takes {wanted} argument(s)")
        if words[1] in ("set", "add"):
            try:  # a value that is not JSON would only surface as a 500 from the proxy, mid-scenario
                json.loads(words[3])
            except ValueError:
                raise HarnessError(f"fault '{part}': the value {words[3]!r} is not JSON (quote a string: "
                                   f"'\"stop\"')") from None
        faults.append(Fault(words[0], words[1], tuple(words[2:])))
    return faults


def _walk(document: Any, path: str) -> tuple[Any, Any] | None:
    """The container holding the field at a dotted path, and the key in it; None when absent."""
    parts = path.split(".")
    value = document
    for part in parts[:-1]:
        if isinstance(value, list) and part.lstrip("-").isdigit() and -len(value) <= int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return None
    last = parts[-1]
    if isinstance(value, list) and last.lstrip("-").isdigit() and -len(value) <= int(last) < len(value):
        return value, int(last)
    if isinstance(value, dict) and last in value:
        return value, last
    return None


def mutate_json(document: Any, fault: Fault) -> bool:
    """Apply a JSON action to the document in place; whether anything changed."""
    found = _walk(document, fault.args[0])
    if found is None:
        return False
    container, key = found
    if fault.action == "set":
        container[key] = json.loads(fault.args[1])
    elif fault.action == "add":
        if not isinstance(container[key], (int, float)):
            return False
        container[key] = container[key] + json.loads(fault.args[1])
    elif fault.action == "delete":
        del container[key]
    return True


def _event_name(block: str) -> tuple[str | None, Any]:
    """The ``event:`` name of an SSE block and its ``data:`` JSON (None where absent or not JSON)."""
    name, data = None, None
    for line in block.splitlines():
        if line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            try:
                data = json.loads(line[5:].strip())
            except ValueError:
                data = None
    return name, data


def mutate_event(block: str, faults: list[Fault]) -> str | None:
    """One SSE event block after the faults: changed, unchanged, or None when it is to be dropped."""
    name, data = _event_name(block)
    for fault in faults:
        if fault.action == "drop-event":
            if fault.args[0] in (name, data.get("type") if isinstance(data, dict) else None, data):
                return None
        elif fault.action == "replace":
            block = block.replace(fault.args[0], fault.args[1])
    if isinstance(data, (dict, list)) and any(fault.action in ("set", "add", "delete") for fault in faults):
        if any(mutate_json(data, fault) for fault in faults if fault.action in ("set", "add", "delete")):
            lines = [line for line in block.splitlines() if not line.startswith("data:")]
            block = "\n".join([*lines, "data: " + json.dumps(data)])
    return block


def mutate_body(text: str, faults: list[Fault]) -> str:
    """A plain (not streamed) answer after the faults."""
    for fault in faults:
        if fault.action == "replace":
            text = text.replace(fault.args[0], fault.args[1])
    json_faults = [fault for fault in faults if fault.action in ("set", "add", "delete")]
    if json_faults:
        try:
            document = json.loads(text)
        except ValueError:
            return text
        if any([mutate_json(document, fault) for fault in json_faults]):
            return json.dumps(document)
    return text


class FaultProxy:
    """A reverse proxy on 127.0.0.1 in front of ``upstream``, lying as ``faults`` say; runs on ``loop``."""

    def __init__(self, upstream: str, faults: list[Fault], loop: asyncio.AbstractEventLoop) -> None:
        self.upstream = upstream.rstrip("/")
        self.faults = faults
        self._loop = loop
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None
        self.base_url = ""
        self.applied = 0  # answers changed so far: a fault that never applied proves nothing

    async def start(self) -> str:
        app = web.Application(client_max_size=1 << 30)
        app.router.add_route("*", "/{tail:.*}", self._forward)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # noqa: SLF001 - aiohttp exposes no port otherwise
        self._session = aiohttp.ClientSession(timeout=UPSTREAM_TIMEOUT, auto_decompress=False, trust_env=False)
        self.base_url = f"http://127.0.0.1:{port}"
        return self.base_url

    async def stop(self) -> None:
        if self._session is not None:
            await self._session.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        faults = [fault for fault in self.faults if fault.applies_to(request.path)]
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_HEADERS}
        body = await request.read()
        tls = tls_context() if self.upstream.startswith("https:") else None
        async with self._session.request(request.method, self.upstream + request.path_qs, headers=headers,
                                         data=body or None, allow_redirects=False, ssl=tls) as upstream:
            out_headers = {k: v for k, v in upstream.headers.items() if k.lower() not in HOP_HEADERS}
            status = upstream.status
            for fault in faults:
                if fault.action == "status":
                    status = int(fault.args[0])
                    self.applied += 1
            if upstream.headers.get("Content-Type", "").startswith("text/event-stream"):
                return await self._forward_stream(request, upstream, status, out_headers, faults)
            text = (await upstream.read()).decode("utf-8", errors="surrogateescape")
            changed = mutate_body(text, faults) if faults else text
            self.applied += changed != text
            return web.Response(status=status, headers=out_headers,
                                body=changed.encode("utf-8", errors="surrogateescape"))

    async def _forward_stream(self, request: web.Request, upstream: aiohttp.ClientResponse, status: int,
                              headers: dict[str, str], faults: list[Fault]) -> web.StreamResponse:
        response = web.StreamResponse(status=status, headers=headers)
        await response.prepare(request)
        pending = ""
        async for chunk in upstream.content.iter_any():
            pending += chunk.decode("utf-8", errors="surrogateescape").replace("\r\n", "\n")
            while "\n\n" in pending:
                block, pending = pending.split("\n\n", 1)
                changed = mutate_event(block, faults) if faults else block
                self.applied += changed != block
                if changed is not None:
                    await response.write((changed + "\n\n").encode("utf-8", errors="surrogateescape"))
        if pending:
            await response.write(pending.encode("utf-8", errors="surrogateescape"))
        await response.write_eof()
        return response


def start_fault_proxy(upstream: str, faults: list[Fault], loop: Any) -> FaultProxy:
    """Start a proxy on the harness's background loop (``BackgroundLoop``); bounded."""
    proxy = FaultProxy(upstream, faults, loop._loop)  # noqa: SLF001 - the loop the proxy must live on
    loop.submit(proxy.start()).result(timeout=10)
    return proxy
