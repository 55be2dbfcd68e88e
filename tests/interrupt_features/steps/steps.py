"""The server steps, plus one that reports the server's pid and then waits to be interrupted."""

import time

from behave import step

from llama_bdd.steplib.server import *  # noqa: F401,F403


@step("the test is told the server pid and waits")
def step_report_pid_and_wait(context):
    with open(context.config.userdata["pid_file"], "w") as out:
        out.write(str(context.state.server.pid))
    time.sleep(60)
