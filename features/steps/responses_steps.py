"""OpenAI Responses: the steps live in llama_bdd.steplib.responses."""

from llama_bdd.steplib.responses import *  # noqa: F401,F403
