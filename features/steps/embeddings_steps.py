"""Embeddings: the steps live in llama_bdd.steplib.embeddings."""

from llama_bdd.steplib.embeddings import *  # noqa: F401,F403
