"""Speculative decoding: the steps live in llama_bdd.steplib.speculative."""

from llama_bdd.steplib.speculative import *  # noqa: F401,F403
