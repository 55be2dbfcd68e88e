"""Server configuration, lifecycle, health and slots: the steps live in llama_bdd.steplib.server."""

from llama_bdd.steplib.server import *  # noqa: F401,F403
