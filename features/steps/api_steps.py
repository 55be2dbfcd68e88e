"""Plain HTTP requests and checks on their answers: the steps live in llama_bdd.steplib.api."""

from llama_bdd.steplib.api import *  # noqa: F401,F403
