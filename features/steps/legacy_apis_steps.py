"""API phrases of the final (Nov 2024) llama.cpp behave suite: the steps live in llama_bdd.steplib.legacy_apis."""

from llama_bdd.steplib.legacy_apis import *  # noqa: F401,F403
