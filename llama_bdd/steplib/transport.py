"""Transport and access: TLS with a certificate made at run time, API key files, endpoint switches, web UI.

A server given ``--ssl-key-file``/``--ssl-cert-file`` is started, probed and spoken to over https (the
harness trusts the run's CA); a binary built without OpenSSL skips these scenarios with that reason.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from llama_bdd.client import access
from llama_bdd.harness.errors import HarnessError
from llama_bdd.harness.tls import make_server_certificate, missing_ssl_support

from .core import (build_known_from, expect, expect_equal, lifecycle, server_version, skip_scenario,
                    state_of, step, suite_of)


# ----------------------------------------------------------------------------------------------
# TLS
# ----------------------------------------------------------------------------------------------

@step("the server speaks TLS with a certificate made for this run")
def step_tls_certificate(context: Any) -> None:
    """Give the server a certificate for 127.0.0.1 signed by a CA made for this run (``trustme``).

    Skipped, with the reason, when the binary was built without SSL support.

        Given the server speaks TLS with a certificate made for this run
    """
    suite = suite_of(context)
    reason = missing_ssl_support(suite.binary) if suite.binary is not None else "no binary to ask (external server)"
    if reason:
        skip_scenario(context, reason)
        return
    certificate = make_server_certificate(suite.workdir / "tls")
    options = state_of(context).config.options
    options["--ssl-key-file"] = str(certificate.key_file)
    options["--ssl-cert-file"] = str(certificate.cert_file)


@step("the server is reached over https")
def step_reached_over_https(context: Any) -> None:
    """The scenario talks to the server over https, and ``GET /health`` answers 200 there.

        Then the server is reached over https
    """
    client = state_of(context).client()
    expect_equal(urlsplit(client.base_url).scheme, "https", f"scheme of {client.base_url}")
    exchange = client.get("/health")
    expect_equal(exchange.status, 200, "GET /health over https", exchange)


@step("the server presents the certificate made for this run")
def step_presents_certificate(context: Any) -> None:
    """The certificate the server's TLS port presents is the one the run made for it.

        Then the server presents the certificate made for this run
    """
    state = state_of(context)
    expect(state.server is not None, "no server of this scenario to check")
    certificate = make_server_certificate(suite_of(context).workdir / "tls")
    presented = access.presented_certificate("127.0.0.1", state.server.port)
    expect(presented == certificate.der(), "the server presents another certificate than the one it was given")


@step("plain http to the server gets no answer")
def step_plain_http_refused(context: Any) -> None:
    """``GET /health`` in plain http to the port the scenario talks to gets no successful answer.

        Then plain http to the server gets no answer
    """
    exchange = access.plain_http_probe(state_of(context).client().base_url)
    state_of(context).results.last = exchange
    access.expect_no_plain_http_answer(exchange)


@step("a client that does not trust the run's CA refuses the server")
def step_untrusting_client(context: Any) -> None:
    """A client with only the system's CAs gets an SSL error from the server's certificate, not an answer.

        Then a client that does not trust the run's CA refuses the server
    """
    exchange = access.untrusting_probe(state_of(context).client().base_url)
    expect(exchange.error is not None and "SSL" in exchange.error,
           "a client without the run's CA must refuse the server's certificate", exchange)


# ----------------------------------------------------------------------------------------------
# API key files
# ----------------------------------------------------------------------------------------------

@step("a server API key file with the lines:")
def step_api_key_file(context: Any) -> None:
    """Start the server with ``--api-key-file``: a file holding the step's text block as it is.

        Given a server API key file with the lines:
          \"\"\"
          # the team's keys
          first-Key-4711
          \"\"\"
    """
    path = access.write_key_file(suite_of(context).workdir / "keys", (context.text or "") + "\n")
    state_of(context).config.options["--api-key-file"] = str(path)


@step("an empty server API key file")
def step_empty_api_key_file(context: Any) -> None:
    """Start the server with ``--api-key-file`` naming an empty file.

        Given an empty server API key file
    """
    path = access.write_key_file(suite_of(context).workdir / "keys", "")
    state_of(context).config.options["--api-key-file"] = str(path)


@step("a server API key file that does not exist")
def step_missing_api_key_file(context: Any) -> None:
    """Start the server with ``--api-key-file`` naming a file that is not there.

        Given a server API key file that does not exist
    """
    state = state_of(context)
    state.config.options["--api-key-file"] = str(state.workdir / "no-such-keys.txt")


@step('the server refuses to start, saying "{text}"')
def step_server_refuses_to_start(context: Any, text: str) -> None:
    """Starting the configured server fails: it exits before it is healthy, and its log says this.

        Then the server refuses to start, saying "failed to open file"
    """
    try:
        started = lifecycle.start_server(context)
    except HarnessError as error:
        expect(text in str(error), f"the server did not start, but its log does not say {text!r}:\n{error}")
        return
    expect(not started, "the server started, though it should have refused to")


# ----------------------------------------------------------------------------------------------
# switches and the web UI
# ----------------------------------------------------------------------------------------------

@step("a static web UI directory")
def step_static_web_ui(context: Any) -> None:
    """Serve the web UI from a directory of the run (``--path``) holding ``index.html`` and ``app.js``.

        Given a static web UI directory
    """
    directory = suite_of(context).workdir / "webui"
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "index.html").write_text('<!doctype html><title>llama-bdd</title><script src="app.js"></script>\n')
    (directory / "app.js").write_text("console.log('llama-bdd');\n")
    state_of(context).config.options["--path"] = str(directory)


@step("the feature is reported disabled")
def step_feature_disabled(context: Any) -> None:
    """The last answer is 403 with ``error.type`` ``feature_disabled`` (the feature is off on this server).

    Builds not known to answer so (older than b11434, or of unknown number) may instead not register the
    route at all when the feature is off: a 404 refuses too, and is accepted there (b9093 does this).

        Then the feature is reported disabled
    """
    exchange = state_of(context).results.last
    expect(exchange is not None, "no request was sent yet")
    if exchange.status == 404 and not build_known_from(context, access.FEATURE_DISABLED_BUILD):
        state_of(context).notes.append(f"(a 404 counted as refused: llama-server {server_version(context)} is not "
                                       f"known to answer 403 feature_disabled)")
        return
    access.expect_feature_disabled(exchange)
