"""Router mode: the steps live in llama_bdd.steplib.router."""

from llama_bdd.steplib.router import *  # noqa: F401,F403
