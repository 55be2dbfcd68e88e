"""Tool calling on the OpenAI chat routes: the steps live in llama_bdd.steplib.tools."""

from llama_bdd.steplib.tools import *  # noqa: F401,F403
