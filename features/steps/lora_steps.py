"""LoRA adapters: the steps live in llama_bdd.steplib.lora."""

from llama_bdd.steplib.lora import *  # noqa: F401,F403
