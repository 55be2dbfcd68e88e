"""Resumable streams: the steps live in llama_bdd.steplib.streams."""

from llama_bdd.steplib.streams import *  # noqa: F401,F403
