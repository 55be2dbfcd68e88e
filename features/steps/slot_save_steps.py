"""Slot save, restore and erase: the steps live in llama_bdd.steplib.slot_save."""

from llama_bdd.steplib.slot_save import *  # noqa: F401,F403
