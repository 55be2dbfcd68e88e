"""Token probabilities (logprobs, post-sampling probabilities): the steps live in llama_bdd.steplib.logprobs."""

from llama_bdd.steplib.logprobs import *  # noqa: F401,F403
