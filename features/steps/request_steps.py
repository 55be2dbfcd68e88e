"""Building requests: prompts, token budget, streaming, API keys, fields: the steps live in llama_bdd.steplib.request."""

from llama_bdd.steplib.request import *  # noqa: F401,F403
