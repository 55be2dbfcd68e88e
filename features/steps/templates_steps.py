"""Chat templates, reasoning and chat input tokens: the steps live in llama_bdd.steplib.templates."""

from llama_bdd.steplib.templates import *  # noqa: F401,F403
