"""Behave hooks of this folder: the library's own (llama_bdd.steplib.core.hooks), as features/ uses them."""

from llama_bdd.steplib.core.hooks import after_all, after_scenario, before_all, before_scenario  # noqa: F401
