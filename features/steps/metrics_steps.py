"""Prometheus metrics: the steps live in llama_bdd.steplib.metrics."""

from llama_bdd.steplib.metrics import *  # noqa: F401,F403
