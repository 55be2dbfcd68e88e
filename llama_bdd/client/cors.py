"""CORS: preflight requests and the ``Access-Control-*`` headers of the answers.

A preflight asks for one method and a list of headers; the answer must allow them (HTTP semantics:
the method or ``*`` in ``Access-Control-Allow-Methods``, each header or ``*`` in
``Access-Control-Allow-Headers``). The exact lists differ between builds.
"""

from __future__ import annotations

from llama_bdd.harness.http import Exchange, HttpClient

from .checks import expect, expect_status

ALLOW_ORIGIN = "Access-Control-Allow-Origin"
PREFLIGHT_METHOD = "POST"
PREFLIGHT_HEADERS = ("authorization", "content-type")


def preflight(http: HttpClient, path: str, origin: str) -> Exchange:
    """``OPTIONS path`` as a browser sends it before a cross-origin POST with a key and a JSON body; 200."""
    headers = {"Origin": origin, "Access-Control-Request-Method": PREFLIGHT_METHOD,
               "Access-Control-Request-Headers": ", ".join(PREFLIGHT_HEADERS)}
    return expect_status(http.request("OPTIONS", path, headers=headers), 200)


def _listed(value: str | None) -> set[str]:
    return {item.strip().lower() for item in (value or "").split(",") if item.strip()}


def expect_preflight_allows_request(exchange: Exchange) -> None:
    """The preflight's answer allows the method and every header it asked for (or ``*``)."""
    methods = _listed(exchange.header("Access-Control-Allow-Methods"))
    expect(PREFLIGHT_METHOD.lower() in methods or "*" in methods,
           f"Access-Control-Allow-Methods must allow the method asked for ({PREFLIGHT_METHOD}): "
           f"{exchange.header('Access-Control-Allow-Methods')!r}", exchange)
    headers = _listed(exchange.header("Access-Control-Allow-Headers"))
    missing = [name for name in PREFLIGHT_HEADERS if name not in headers and "*" not in headers]
    expect(not missing, f"Access-Control-Allow-Headers must allow the headers asked for ({', '.join(missing)} "
                        f"missing): {exchange.header('Access-Control-Allow-Headers')!r}", exchange)
