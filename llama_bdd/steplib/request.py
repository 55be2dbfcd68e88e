"""Steps that build up the next request: prompts, model, token budget, streaming, API key, fields."""

from __future__ import annotations

from typing import Any

from llama_bdd.client.checks import json_value

from .core import state_of, step
from .core.scenario import text_of_token_count

LONG_PROMPT_FILLER = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt."


@step("a prompt", "a prompt:")
def step_a_prompt_text(context: Any) -> None:
    """Queue the step's text block as a prompt.

        Given a prompt:
          \"\"\"
          Write a very long story about AI.
          \"\"\"
    """
    state_of(context).request.prompts.append(context.text)


@step("a prompt of {n_tokens:d} tokens")
def step_a_prompt_of_n_tokens(context: Any, n_tokens: int) -> None:
    """Queue a filler text that the running server tokenizes into exactly N prompt tokens.

        Given a prompt of 300 tokens
    """
    state_of(context).request.prompts.append(text_of_token_count(context, n_tokens, LONG_PROMPT_FILLER))


@step("a prompt {prompt:PromptText}")
def step_a_prompt(context: Any, prompt: str) -> None:
    """Queue a one-line prompt.

        Given a prompt I believe the meaning of life is
    """
    state_of(context).request.prompts.append(prompt)


@step("a user prompt {user_prompt}")
def step_user_prompt(context: Any, user_prompt: str) -> None:
    """Queue the user message of a chat request.

        Given a user prompt Write a joke about AI
    """
    state_of(context).request.prompts.append(user_prompt)


@step("a system prompt {system_prompt}")
def step_system_prompt(context: Any, system_prompt: str) -> None:
    """The system message of chat requests.

        Given a system prompt You are a helpful assistant.
    """
    state_of(context).request.system_prompt = system_prompt


@step("a model {model:ModelName}")
def step_request_model(context: Any, model: str) -> None:
    """The ``model`` field of OpenAI-compatible requests.

        Given a model gpt-3.5-turbo
    """
    state_of(context).request.model = model


@step("{max_tokens:d} max tokens to predict")
def step_max_tokens(context: Any, max_tokens: int) -> None:
    """How many tokens a request may generate (``n_predict`` / ``max_tokens``).

        Given 16 max tokens to predict
    """
    state_of(context).request.n_predict = max_tokens


@step("streaming is {enable_streaming}")
def step_streaming(context: Any, enable_streaming: str) -> None:
    """Stream responses as server-sent events or not (native and OpenAI-compatible requests alike).

        Given streaming is enabled
        Given streaming is disabled
    """
    if enable_streaming not in ("enabled", "disabled"):
        raise AssertionError(f"streaming is '{enable_streaming}': say 'enabled' or 'disabled'")
    state_of(context).request.streaming = enable_streaming == "enabled"


@step("a user api key {user_api_key}")
def step_user_api_key(context: Any, user_api_key: str) -> None:
    """Send this API key as ``Authorization: Bearer`` with the next requests.

        Given a user api key llama.cpp
    """
    state_of(context).request.user_api_key = user_api_key


@step("no user api key", "a user api key ", "a user api key")
def step_no_user_api_key(context: Any) -> None:
    """Send no API key (an empty Examples cell gives the same).

        Given no user api key
    """
    state_of(context).request.user_api_key = None


@step("the request field {name} is {value}")
def step_request_field(context: Any, name: str, value: str) -> None:
    """Set any JSON field of the next requests; the value is JSON when it parses, else a string.

        Given the request field temperature is 0
        Given the request field ignore_eos is true
        Given the request field stop is ["\\n"]
    """
    state_of(context).request.fields[name] = json_value(value)
