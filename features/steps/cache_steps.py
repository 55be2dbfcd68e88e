"""Named prompts, cache reuse in their timings, server log tags: the steps live in llama_bdd.steplib.cache."""

from llama_bdd.steplib.cache import *  # noqa: F401,F403
