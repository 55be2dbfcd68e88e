"""Sleeping on idle: the steps live in llama_bdd.steplib.sleep."""

from llama_bdd.steplib.sleep import *  # noqa: F401,F403
