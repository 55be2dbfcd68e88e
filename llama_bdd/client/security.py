"""API keys: how a key may be sent, what a refused request answers, and the OpenAI APIs a key must open.

llama-server (``--api-key K1,K2``) takes the key from ``Authorization`` (the ``Bearer`` prefix is optional),
or from ``X-Api-Key`` when ``Authorization`` is absent, and answers 401 ``authentication_error`` otherwise.
``/health`` and ``/v1/health`` (and the web UI's own files) are public.
"""

from __future__ import annotations

import json
from typing import Any

import openai

from llama_bdd.harness.http import Exchange

from .checks import expect
from .openai_api import exchange_from_openai, openai_client


def credential_headers(credentials: str) -> dict[str, str]:
    """Headers for a phrase such as ``the key K``, ``the key K in X-Api-Key``, ``an empty key``, ``no key``."""
    text = credentials.strip()
    if text == "no key":
        return {}
    if text == "an empty key":
        return {"Authorization": "Bearer "}
    if text.startswith("the key "):
        key = text[len("the key "):]
        for suffix, header in ((" in X-Api-Key", "X-Api-Key"), (" without the Bearer prefix", "Authorization")):
            if key.endswith(suffix):
                return {header: key[: -len(suffix)]}
        return {"Authorization": f"Bearer {key}"}
    raise AssertionError(f"unknown credentials '{credentials}': say 'the key K', 'the key K in X-Api-Key', "
                         f"'the key K without the Bearer prefix', 'an empty key' or 'no key'")


def json_error(exchange: Exchange) -> dict[str, Any]:
    """The ``error`` object of an answer, ``{}`` when there is none (or the answer is not JSON)."""
    try:
        body = json.loads(exchange.response_text)
    except ValueError:
        return {}
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, dict) else ({"error": error} if error else {})


def authentication_failure(exchange: Exchange) -> str | None:
    """Why this answer is not 401 with a JSON ``error.type`` authentication_error and ``error.code`` 401."""
    error = json_error(exchange)
    if exchange.status != 401 or error.get("type") != "authentication_error" or error.get("code") != 401:
        return f"HTTP {exchange.status or 'none'}, error {json.dumps(error) if error else 'none'}"
    return None


OPENAI_CALLS = {
    "chat completions": lambda client, model: client.chat.completions.with_raw_response.create(
        model=model, messages=[{"role": "user", "content": "Hi"}], max_tokens=1),
    "completions": lambda client, model: client.completions.with_raw_response.create(
        model=model, prompt="Hi", max_tokens=1),
    "embeddings": lambda client, model: client.embeddings.with_raw_response.create(
        model=model, input="Hi", encoding_format="float"),
    "models": lambda client, model: client.models.with_raw_response.list(),
}


def call_openai_apis(base_url: str, api_key: str | None, model: str,
                     names: list[str]) -> dict[str, tuple[str | None, Exchange]]:
    """Call each named OpenAI API through the openai client: the exception class it raised (or None), and the
    exchange as the client sent it."""
    unknown = [name for name in names if name not in OPENAI_CALLS]
    expect(not unknown, f"unknown openai API {unknown}: use {', '.join(OPENAI_CALLS)}")
    client = openai_client(base_url, api_key)
    outcomes: dict[str, tuple[str | None, Exchange]] = {}
    for name in names:
        try:
            raw = OPENAI_CALLS[name](client, model)
            response, error_name = raw.http_response, None
        except openai.APIStatusError as error:
            response, error_name = error.response, type(error).__name__
        except openai.APIConnectionError as error:
            raise AssertionError(f"the openai client could not reach the server for {name}: {error}") from None
        outcomes[name] = (error_name, exchange_from_openai("", {}, api_key, response))
    return outcomes
