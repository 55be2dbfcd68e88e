"""API-key security: the steps live in llama_bdd.steplib.security."""

from llama_bdd.steplib.security import *  # noqa: F401,F403
