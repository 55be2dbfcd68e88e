"""Audio transcription requests: the steps live in llama_bdd.steplib.audio."""

from llama_bdd.steplib.audio import *  # noqa: F401,F403
