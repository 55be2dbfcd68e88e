"""Tokenization: the steps live in llama_bdd.steplib.tokenize."""

from llama_bdd.steplib.tokenize import *  # noqa: F401,F403
