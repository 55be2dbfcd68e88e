"""The CORS proxy (``/cors-proxy``, ``--ui-mcp-proxy``) and the built-in tools (``/tools``, ``--tools``).

Both are off by default (403 ``feature_disabled``). The proxy is only ever pointed at a capture server on
127.0.0.1 that the scenario starts (and that is stopped when the scenario ends).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from llama_bdd.client import access
from llama_bdd.harness.capture_server import CAPTURE_BODY, CaptureServer
from llama_bdd.harness.multimodal import sample_image_png

from .core import expect, expect_equal, expect_status, state_of, step


@dataclass
class ProxyState:
    """What the proxy and tools steps remember between steps of a scenario."""

    target: CaptureServer | None = None
    sent_headers: dict[str, str] = field(default_factory=dict)  # of the last proxied request


def _target(context: Any) -> CaptureServer:
    target = state_of(context).part(ProxyState).target
    expect(target is not None, "no capture server: add 'Given a capture server on 127.0.0.1' first")
    return target


@step("a capture server on 127.0.0.1")
def step_capture_server(context: Any) -> None:
    """Start a small HTTP server on 127.0.0.1 that records what it gets; it is stopped when the scenario ends.

        Given a capture server on 127.0.0.1
    """
    target = CaptureServer().start()
    context.add_cleanup(target.stop)
    state_of(context).part(ProxyState).target = target


@step("the CORS proxy is asked to GET the capture server with the headers:")
def step_proxy_get(context: Any) -> None:
    """``GET /cors-proxy?url=<capture server>/capture`` with the table's headers (columns ``name``, ``value``).

        When the CORS proxy is asked to GET the capture server with the headers:
          | name                                   | value            |
          | Cookie                                 | session=secret   |
          | X-Llama-Server-Proxy-Header-Accept     | application/json |
    """
    expect(context.table is not None and {"name", "value"} <= set(context.table.headings),
           "this step needs a table with columns name and value")
    state = state_of(context)
    headers = {row["name"]: row["value"] for row in context.table}
    state.part(ProxyState).sent_headers = headers
    state.results.last = access.proxy_get(state.client(), f"{_target(context).base_url}/capture", headers)


@step("the capture server got only the headers meant for it")
def step_capture_got_only_explicit(context: Any) -> None:
    """The proxy answered 200 with the target's body; the target got one request, carrying every
    ``X-Llama-Server-Proxy-Header-<name>`` as ``<name>`` and none of the caller's other headers.

        Then the capture server got only the headers meant for it
    """
    state = state_of(context)
    exchange = expect_status(state.results.last, 200)
    expect_equal(exchange.response_text, CAPTURE_BODY.decode(), "body passed on by the proxy", exchange)
    requests = _target(context).requests
    expect_equal(len(requests), 1, "requests the capture server got", exchange)
    problems = access.forwarded_header_problems(state.part(ProxyState).sent_headers, requests[0].headers)
    expect(not problems, "the proxy forwarded the wrong headers:\n" + "\n".join(problems)
           + f"\nthe capture server got: {requests[0].headers}", exchange)


@step("the capture server got no request")
def step_capture_got_nothing(context: Any) -> None:
    """Nothing reached the capture server.

        Then the capture server got no request
    """
    expect_equal(len(_target(context).requests), 0, "requests the capture server got")


@step("the built-in tools listed are {names}")
def step_tools_listed(context: Any, names: str) -> None:
    """``GET /tools`` answers exactly these tools (comma separated), in any order.

        Then the built-in tools listed are read_file, grep_search
    """
    state = state_of(context)
    exchange = state.client().get("/tools", headers=state.request.auth_headers())
    state.results.last = exchange
    wanted = sorted(name.strip() for name in names.split(",") if name.strip())
    expect_equal(sorted(access.listed_tool_names(exchange)), wanted, "tools listed by GET /tools", exchange)


@step("a media directory with the test image {name} and one beside it")
def step_media_directory(context: Any, name: str) -> None:
    """Serve local media from a scenario directory (``--media-path``) holding a small PNG under this name;
    another copy lies beside the directory, outside it (for traversal attempts: ``file://../<name>``).

        Given a media directory with the test image test.png and one beside it
    """
    state = state_of(context)
    media = state.workdir / "media" / "allowed"
    media.mkdir(parents=True, exist_ok=True)
    (media / name).write_bytes(sample_image_png())
    (media.parent / name).write_bytes(sample_image_png())
    state.config.options["--media-path"] = str(media)
