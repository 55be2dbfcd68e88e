"""Refused requests and the server's health after them: the steps live in llama_bdd.steplib.bad_input."""

from llama_bdd.steplib.bad_input import *  # noqa: F401,F403
