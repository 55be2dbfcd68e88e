"""Anthropic-compatible Messages: the steps live in llama_bdd.steplib.anthropic."""

from llama_bdd.steplib.anthropic import *  # noqa: F401,F403
