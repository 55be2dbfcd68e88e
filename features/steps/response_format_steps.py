"""response_format json_object and json_schema: the steps live in llama_bdd.steplib.response_format."""

from llama_bdd.steplib.response_format import *  # noqa: F401,F403
