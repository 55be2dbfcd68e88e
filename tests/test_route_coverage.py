"""Every route path of the verified build is used by some scenario (a feature names it, or a client or step module
sends to it), unless routes.NOT_COVERED says why not. A route added to the server shows up here first.

The check is by path: a path the server serves with several methods (GET and POST /props, GET and DELETE
/v1/stream, ...) counts as used when any of them is; the method-specific gaps are the ones NOT_COVERED names.
"""

import re
from pathlib import Path

import pytest

from llama_bdd.client.routes import NOT_COVERED, ROUTES_OF_VERIFIED_BUILD

ROOT = Path(__file__).resolve().parents[1]
SOURCES = "\n".join(path.read_text() for pattern in ("features/*.feature", "llama_bdd/client/*.py",
                                                     "llama_bdd/steplib/*.py")
                    for path in sorted(ROOT.glob(pattern)) if path.name != "routes.py")


def _pattern(path: str) -> re.Pattern:
    # a route parameter (":id_slot") is any value; the path must stand alone ("/models" is not "/v1/models")
    parts = [r"(\d+|\{\w+\})" if part.startswith(":") else re.escape(part) for part in path.split("/")]
    return re.compile(r"(?<![\w/.-])" + "/".join(parts) + r"(?![\w/-])")


def test_the_routes_are_those_of_the_verified_build():
    assert len(ROUTES_OF_VERIFIED_BUILD) == len(set(ROUTES_OF_VERIFIED_BUILD)) == 51
    assert set(NOT_COVERED) <= set(ROUTES_OF_VERIFIED_BUILD)


@pytest.mark.parametrize("route", [r for r in ROUTES_OF_VERIFIED_BUILD if r not in NOT_COVERED],
                         ids=lambda route: " ".join(route))
def test_every_route_is_used_by_a_scenario(route):
    assert _pattern(route[1]).search(SOURCES), (f"{' '.join(route)}: no feature and no client module uses it; "
                                                f"cover it, or say in routes.NOT_COVERED why not")


def test_the_path_pattern_stands_alone():
    assert not _pattern("/models").search("GET /v1/models and /models/sse")
    assert _pattern("/models").search("a GET request to /models")
    assert _pattern("/slots/:id_slot").search("POST /slots/0?action=save")
