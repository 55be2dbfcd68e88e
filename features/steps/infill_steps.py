"""Fill-in-the-middle (/infill): the steps live in llama_bdd.steplib.infill."""

from llama_bdd.steplib.infill import *  # noqa: F401,F403
