"""Request phrases and generation checks of the final (Nov 2024) llama.cpp behave suite: the steps live in llama_bdd.steplib.legacy_requests."""

from llama_bdd.steplib.legacy_requests import *  # noqa: F401,F403
