"""OpenAI text completions, the model list and /props: the steps live in llama_bdd.steplib.oai_completions."""

from llama_bdd.steplib.oai_completions import *  # noqa: F401,F403
