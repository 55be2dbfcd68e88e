"""Constrained generation (grammar, json_schema): the steps live in llama_bdd.steplib.grammar."""

from llama_bdd.steplib.grammar import *  # noqa: F401,F403
