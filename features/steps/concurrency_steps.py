"""Concurrent requests: the steps live in llama_bdd.steplib.concurrency."""

from llama_bdd.steplib.concurrency import *  # noqa: F401,F403
