"""Transport and access control: TLS, API key files, switched-off endpoints, the CORS proxy, built-in tools.

- TLS (``--ssl-key-file``/``--ssl-cert-file``): the server presents the certificate it was given; a client
  that trusts its CA gets answers, one that does not refuses it, and plain http to the port gets no answer.
- ``--api-key-file``: one key per line; lines starting with ``#`` and empty lines are skipped. The keys add
  to ``--api-key``'s. An empty file gives no key at all (the server is then open); a missing one stops start.
- A feature that is off answers 403 ``{"error": {"type": "feature_disabled", ...}}`` (``/cors-proxy`` without
  ``--ui-mcp-proxy``, ``/tools`` without ``--tools``); ``--no-slots`` and POST ``/props`` without ``--props``
  answer 501 ``not_supported_error``.
- ``/cors-proxy?url=...`` forwards a request to the URL with only the headers named
  ``X-Llama-Server-Proxy-Header-<name>`` (sent on as ``<name>``); nothing else of the caller's goes on.
"""

from __future__ import annotations

import hashlib
import socket
import ssl
import time
from pathlib import Path
from urllib.parse import quote, urlsplit

import requests

from llama_bdd.harness.http import Exchange, HttpClient, loopback_session

from .checks import expect, expect_equal, expect_status

PROXY_HEADER_PREFIX = "x-llama-server-proxy-header-"
PROBE_TIMEOUT = 10.0


# ----------------------------------------------------------------------------------------------
# TLS
# ----------------------------------------------------------------------------------------------

def plain_http_probe(base_url: str) -> Exchange:
    """``GET /health`` in plain http to the host and port of ``base_url`` (whatever its scheme)."""
    parts = urlsplit(base_url)
    url = f"http://{parts.hostname}:{parts.port}/health"
    exchange = Exchange(method="GET", url=url)
    started = time.monotonic()
    with loopback_session() as session:
        try:
            answer = session.get(url, timeout=PROBE_TIMEOUT)
            exchange.status, exchange.response_headers = answer.status_code, dict(answer.headers)
            exchange.response_text = answer.text
        except requests.RequestException as error:
            exchange.error = f"{type(error).__name__}: {error}"
    exchange.elapsed = time.monotonic() - started
    return exchange


def expect_no_plain_http_answer(exchange: Exchange) -> None:
    """A TLS port must not answer plain http with success (no answer at all, or an HTTP error)."""
    expect(exchange.error is not None or (exchange.status or 0) >= 400,
           f"plain http to a TLS port must get no successful answer, got HTTP {exchange.status}", exchange)


def untrusting_probe(base_url: str) -> Exchange:
    """``GET /health`` over https from a client that trusts only the system's CAs."""
    exchange = Exchange(method="GET", url=base_url + "/health")
    with requests.Session() as session:
        session.trust_env = False
        try:
            answer = session.get(exchange.url, timeout=PROBE_TIMEOUT, verify=True)
            exchange.status, exchange.response_text = answer.status_code, answer.text
        except requests.RequestException as error:
            exchange.error = f"{type(error).__name__}: {error}"
    return exchange


def presented_certificate(host: str, port: int) -> bytes:
    """The DER certificate a TLS server presents (not verified: this is what is compared)."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    with socket.create_connection((host, port), timeout=PROBE_TIMEOUT) as raw:
        with context.wrap_socket(raw, server_hostname=host) as wrapped:
            certificate = wrapped.getpeercert(binary_form=True)
    expect(certificate is not None, f"{host}:{port} presented no certificate")
    return certificate


# ----------------------------------------------------------------------------------------------
# API key files
# ----------------------------------------------------------------------------------------------

def write_key_file(directory: Path, text: str) -> Path:
    """A key file with this exact content, named by its content (so identical files share a server)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"keys-{hashlib.sha256(text.encode()).hexdigest()[:12]}.txt"
    if not path.is_file():
        path.write_text(text)
    return path


# ----------------------------------------------------------------------------------------------
# switched-off features
# ----------------------------------------------------------------------------------------------

FEATURE_DISABLED_BUILD = 11434  # the build known to answer 403 feature_disabled for a feature left off


def expect_feature_disabled(exchange: Exchange) -> None:
    """403 with ``error.type`` ``feature_disabled`` (what llama-server answers for a feature left off)."""
    expect_status(exchange, 403)
    body = exchange.body
    error = body.get("error") if isinstance(body, dict) else None
    expect(isinstance(error, dict), "the 403 answer has no error object", exchange)
    expect_equal(error.get("type"), "feature_disabled", "error.type", exchange)
    expect(bool(error.get("message")), "the 403 answer has no error.message", exchange)


# ----------------------------------------------------------------------------------------------
# the CORS proxy
# ----------------------------------------------------------------------------------------------

def proxy_get(http: HttpClient, target_url: str, headers: dict[str, str]) -> Exchange:
    return http.get(f"/cors-proxy?url={quote(target_url, safe='')}", headers=headers)


def forwarded_header_problems(sent: dict[str, str], received: dict[str, str]) -> list[str]:
    """What is wrong with the headers the target got: every ``X-Llama-Server-Proxy-Header-<name>`` must arrive
    as ``<name>`` with its value; no other header the caller sent may arrive with the caller's value."""
    problems = []
    explicit = {name.lower()[len(PROXY_HEADER_PREFIX):]: value for name, value in sent.items()
                if name.lower().startswith(PROXY_HEADER_PREFIX)}
    for name, value in explicit.items():
        if received.get(name) != value:
            problems.append(f"{name}: expected {value!r} (sent as {PROXY_HEADER_PREFIX}{name}), got "
                            f"{received.get(name)!r}")
    for name, value in sent.items():
        lowered = name.lower()
        if lowered.startswith(PROXY_HEADER_PREFIX) or lowered in explicit:
            continue
        if lowered in received:
            problems.append(f"{name} was forwarded ({received[lowered]!r}) though not asked for")
    return problems


# ----------------------------------------------------------------------------------------------
# built-in tools
# ----------------------------------------------------------------------------------------------

def listed_tool_names(exchange: Exchange) -> list[str]:
    """Names of the tools ``GET /tools`` lists (each entry names its tool in ``tool``)."""
    expect_status(exchange, 200)
    body = exchange.body
    expect(isinstance(body, list), "GET /tools must answer a JSON array", exchange)
    names = []
    for entry in body:
        name = entry.get("tool") if isinstance(entry, dict) else None
        expect(isinstance(name, str), f"a tool without a name: {entry!r}", exchange)
        names.append(name)
    return names
