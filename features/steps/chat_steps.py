"""OpenAI-compatible chat completions: the steps live in llama_bdd.steplib.chat."""

from llama_bdd.steplib.chat import *  # noqa: F401,F403
