"""The context window: prompts too long, generation reaching its end: the steps live in llama_bdd.steplib.context_limits."""

from llama_bdd.steplib.context_limits import *  # noqa: F401,F403
