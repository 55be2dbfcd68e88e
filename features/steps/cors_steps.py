"""CORS: the steps live in llama_bdd.steplib.cors."""

from llama_bdd.steplib.cors import *  # noqa: F401,F403
