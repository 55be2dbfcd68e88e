"""Behave hooks: each one hands over to llama_bdd.steplib.core.hooks, where the work is done."""

from llama_bdd.steplib.core import hooks


def before_all(context):
    hooks.before_all(context)


def before_scenario(context, scenario):
    hooks.before_scenario(context, scenario)


def after_scenario(context, scenario):
    hooks.after_scenario(context, scenario)


def after_all(context):
    hooks.after_all(context)
