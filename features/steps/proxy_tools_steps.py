"""The CORS proxy and built-in tools: the steps live in llama_bdd.steplib.proxy_tools."""

from llama_bdd.steplib.proxy_tools import *  # noqa: F401,F403
