"""Premises about the served model: the steps live in llama_bdd.steplib.model."""

from llama_bdd.steplib.model import *  # noqa: F401,F403
