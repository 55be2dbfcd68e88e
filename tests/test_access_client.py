"""Transport and access helpers: the proxy's header rule, key files, TLS probes, the capture server."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest
import requests

from llama_bdd.client import access, streams
from llama_bdd.harness import http, tls
from llama_bdd.harness.capture_server import CAPTURE_BODY, CaptureServer


def test_only_explicit_proxy_headers_may_arrive() -> None:
    sent = {"Authorization": "Bearer k", "Cookie": "c=1", "X-Llama-Server-Proxy-Header-Accept": "text/plain",
            "X-Llama-Server-Proxy-Header-Authorization": "Bearer explicit"}
    assert access.forwarded_header_problems(sent, {"accept": "text/plain", "authorization": "Bearer explicit",
                                                   "host": "x"}) == []
    leaked = access.forwarded_header_problems(sent, {"accept": "text/plain", "authorization": "Bearer explicit",
                                                     "cookie": "c=1"})
    assert leaked == ["Cookie was forwarded ('c=1') though not asked for"]
    assert access.forwarded_header_problems(sent, {"authorization": "Bearer k"})  # the caller's own key


def test_key_files_are_named_by_content(tmp_path: Path) -> None:
    one = access.write_key_file(tmp_path, "a\n# b\n")
    assert one.read_text() == "a\n# b\n"
    assert access.write_key_file(tmp_path, "a\n# b\n") == one
    assert access.write_key_file(tmp_path, "") != one


def test_a_binary_says_whether_it_has_ssl(tmp_path: Path) -> None:
    without = tmp_path / "without"
    without.write_bytes(b"\0" * (1 << 20) + tls.NO_SSL_MARKER[:10] + tls.NO_SSL_MARKER[10:] + b"\0")
    with_ssl = tmp_path / "with"
    with_ssl.write_bytes(b"\0 running with SSL \0")
    assert "without SSL support" in tls.missing_ssl_support(without)
    assert tls.missing_ssl_support(with_ssl) is None


def test_the_run_certificate_is_trusted_by_the_harness_clients(tmp_path: Path) -> None:
    certificate = tls.make_server_certificate(tmp_path / "tls")
    assert certificate.cert_file.is_file() and certificate.key_file.is_file()
    assert tls.make_server_certificate(tmp_path / "tls") == certificate  # made once per directory
    assert http.tls_verification() != True  # noqa: E712 - requests now verifies against a bundle file
    context = ssl.create_default_context(cafile=str(certificate.ca_file))
    assert context.get_ca_certs()
    assert len(certificate.der()) > 100


def test_the_capture_server_records_and_stops() -> None:
    target = CaptureServer().start()
    try:
        answer = requests.get(f"{target.base_url}/capture", headers={"X-Probe": "1"}, timeout=5)
        assert answer.content == CAPTURE_BODY
        assert target.requests[0].headers["x-probe"] == "1"
    finally:
        target.stop()
    with pytest.raises(AssertionError):
        target.base_url


def test_a_chat_stream_is_read_back() -> None:
    text = ('data: {"choices":[{"delta":{"content":"Hel"}}]}\n\n'
            'data: {"choices":[{"delta":{"content":"lo"}}]}\n\n'
            'data: {"choices":[],"usage":{"completion_tokens":2}}\n\ndata: [DONE]\n\n')
    assert streams.chat_of(text) == ("Hello", {"completion_tokens": 2}, True)
    assert streams.stream_path("a/b::m", 7) == "/v1/stream?conv_id=a%2Fb%3A%3Am&from=7"
