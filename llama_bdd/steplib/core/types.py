"""Placeholder types of the step patterns, registered with behave's parse matcher before any step.

They keep phrases apart without changing their text: ``a {method:w} request to {path:UrlPath}`` cannot take
``a POST request to /x with JSON {...}`` (a URL path has no spaces), ``a prompt {prompt:PromptText}`` leaves
``a prompt of 300 tokens`` to its own step. ``python -m llama_bdd.tools.check_overlaps`` proves no step text
matches two patterns, so the order in which step modules are imported does not matter.
"""

from __future__ import annotations

import parse
from behave import register_type


@parse.with_pattern(r"\S+")
def url_path(text: str) -> str:
    """A URL path with its query, no spaces: ``/slots/0?action=save``."""
    return text


@parse.with_pattern(r"-\S+")
def server_flag(text: str) -> str:
    """A llama-server flag: ``--ctx-size``, ``-np``."""
    return text


@parse.with_pattern(r"(?!file |alias |file$|alias$)\S+")
def model_name(text: str) -> str:
    """The ``model`` field of a request: one word, neither ``file ...`` nor ``alias ...`` (their own steps)."""
    return text


@parse.with_pattern(r"(?!of [-+ ]?\w+ tokens$).+")
def prompt_text(text: str) -> str:
    """A one-line prompt, except ``of N tokens`` (``a prompt of N tokens`` builds one of that length)."""
    return text


@parse.with_pattern(r"healthy|ready|idle|busy")
def server_state(text: str) -> str:
    """A state the server is waited for in: healthy, ready, idle or busy."""
    return text


register_type(UrlPath=url_path, ServerFlag=server_flag, ModelName=model_name, PromptText=prompt_text,
              ServerState=server_state)


@parse.with_pattern(r"(?!.* from HF repo ).+")
def model_file(text: str) -> str:
    """A model file name or path, except ``X from HF repo Y`` (the final-era phrase naming a Hugging Face file)."""
    return text


register_type(ModelFile=model_file)
