"""The persistent disk prompt cache: the steps live in llama_bdd.steplib.cache_disk."""

from llama_bdd.steplib.cache_disk import *  # noqa: F401,F403
