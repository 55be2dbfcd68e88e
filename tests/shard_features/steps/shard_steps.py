"""Steps of the shard test features: no server, only outcomes the merge must count."""

from behave import step


@step("a step that passes")
def step_passes(context):
    """Given a step that passes"""


@step("a step that fails")
def step_fails(context):
    """Then a step that fails"""
    raise AssertionError("this scenario fails on purpose")
