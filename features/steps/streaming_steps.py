"""Streamed answers, native and OpenAI-compatible: the steps live in llama_bdd.steplib.streaming."""

from llama_bdd.steplib.streaming import *  # noqa: F401,F403
