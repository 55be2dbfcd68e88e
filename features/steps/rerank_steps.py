"""Reranking: the steps live in llama_bdd.steplib.rerank."""

from llama_bdd.steplib.rerank import *  # noqa: F401,F403
