"""Server configuration phrases of the final (Nov 2024) llama.cpp behave suite: the steps live in llama_bdd.steplib.legacy_server."""

from llama_bdd.steplib.legacy_server import *  # noqa: F401,F403
