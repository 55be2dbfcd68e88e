"""Native /completion requests and checks: the steps live in llama_bdd.steplib.completion."""

from llama_bdd.steplib.completion import *  # noqa: F401,F403
