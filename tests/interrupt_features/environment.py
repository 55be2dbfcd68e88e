"""The suite's own hooks, for the interrupt test (tests/test_interrupt.py)."""

from llama_bdd.steplib.core import hooks

before_all = hooks.before_all
before_scenario = hooks.before_scenario
after_scenario = hooks.after_scenario
after_all = hooks.after_all
