"""API-key security: which endpoints ask for a key, how a key may be sent, and that keys never leak.

llama-server (``--api-key K1,K2`` or repeated steps ``a server api key ...``) takes the key from
``Authorization`` (the ``Bearer`` prefix is optional), or from ``X-Api-Key`` when ``Authorization`` is
absent, and answers 401 ``authentication_error`` otherwise. ``/health`` and ``/v1/health`` (and the web UI's
own files) are public.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from llama_bdd.client.request import CORS_TEST_ORIGIN
from llama_bdd.client.security import authentication_failure, call_openai_apis, credential_headers, json_error
from llama_bdd.harness.http import Exchange

from .core import expect, expect_status, failure_report, state_of, step
from .core.scenario import openai_model


# ----------------------------------------------------------------------------------------------
# credentials
# ----------------------------------------------------------------------------------------------

@dataclass
class EndpointAnswer:
    method: str
    path: str
    exchange: Exchange


@dataclass
class SecurityState:
    """What the security steps remember between steps of a scenario."""

    answers: list[EndpointAnswer] = field(default_factory=list)  # of the last 'these endpoints are called'
    # API name -> (the exception class the openai client raised, or None; the exchange), of the last calls
    openai_outcomes: dict[str, tuple[str | None, Exchange | None]] = field(default_factory=dict)


def endpoint_answers(context: Any) -> list[EndpointAnswer]:
    answers = state_of(context).part(SecurityState).answers
    expect(bool(answers), "no endpoint was called: add 'When these endpoints are called with ...:' first")
    return answers


# ----------------------------------------------------------------------------------------------
# steps
# ----------------------------------------------------------------------------------------------

@step("these endpoints are called with {credentials}:")
def step_endpoints_called_with(context: Any, credentials: str) -> None:
    """Call every endpoint of the table (columns ``method``, ``path``, optional ``body``) with these credentials.

    Credentials: ``the key K`` (``Authorization: Bearer K``), ``the key K in X-Api-Key``, ``the key K without
    the Bearer prefix``, ``an empty key`` (``Authorization: Bearer `` with nothing after), ``no key``.

        When these endpoints are called with the key llama.cpp:
          | method | path       | body                 |
          | POST   | /tokenize  | {"content": "hello"} |
          | GET    | /props     |                      |
    """
    expect(context.table is not None and {"method", "path"} <= set(context.table.headings),
           "this step needs a table with columns method, path and optionally body")
    state = state_of(context)
    headers = {"Origin": CORS_TEST_ORIGIN, **credential_headers(credentials)}
    answers = []
    for row in context.table:
        body = row["body"].strip() if "body" in context.table.headings else ""
        exchange = state.client().request(row["method"].upper(), row["path"], raw_body=body or None,
                                          headers=headers)
        answers.append(EndpointAnswer(row["method"].upper(), row["path"], exchange))
    state.part(SecurityState).answers = answers
    state.results.last = answers[-1].exchange


@step("every endpoint answers 401 authentication_error")
def step_every_endpoint_401(context: Any) -> None:
    """Each answer is HTTP 401, JSON ``error.type`` ``authentication_error`` and ``error.code`` 401.

        Then every endpoint answers 401 authentication_error
    """
    failures = []
    for answer in endpoint_answers(context):
        problem = authentication_failure(answer.exchange)
        if problem:
            failures.append(f"{answer.method} {answer.path}: {problem}\n{answer.exchange.describe(600)}")
    expect(not failures, "expected 401 authentication_error from every endpoint:\n" + "\n".join(failures))


@step("every endpoint answers 200 without an error")
def step_every_endpoint_200(context: Any) -> None:
    """Each answer is HTTP 200 and, when JSON, carries no ``error`` object (no error passed off as success).

        Then every endpoint answers 200 without an error
    """
    failures = []
    for answer in endpoint_answers(context):
        exchange = answer.exchange
        if exchange.status != 200 or json_error(exchange):
            failures.append(f"{answer.method} {answer.path}: HTTP {exchange.status or 'none'}\n"
                            f"{exchange.describe(600)}")
    expect(not failures, "expected 200 without an error from every endpoint:\n" + "\n".join(failures))


@step("the openai client calls {apis}")
def step_openai_client_calls(context: Any, apis: str) -> None:
    """Call these OpenAI APIs through the openai client, with the user API key; keep what each did.

    APIs: ``chat completions``, ``completions``, ``embeddings``, ``models`` (comma or "and" separated).

        When the openai client calls chat completions, completions, embeddings and models
    """
    names = [name.strip() for name in apis.replace(" and ", ",").split(",") if name.strip()]
    state = state_of(context)
    outcomes = call_openai_apis(state.client().base_url, state.request.user_api_key, openai_model(context), names)
    state.results.background.extend(exchange for _, exchange in outcomes.values())
    state.part(SecurityState).openai_outcomes = outcomes


def _openai_outcomes(context: Any) -> dict[str, tuple[str | None, Exchange | None]]:
    outcomes = state_of(context).part(SecurityState).openai_outcomes
    expect(bool(outcomes), "the openai client called nothing: add 'When the openai client calls ...' first")
    return outcomes


@step("each openai client call raised {error_class:w}")
def step_each_openai_call_raised(context: Any, error_class: str) -> None:
    """Every call of the last ``the openai client calls ...`` raised this exception class.

    For ``AuthenticationError`` the answer must also be 401 with ``error.type`` ``authentication_error``.

        Then each openai client call raised AuthenticationError
    """
    failures = []
    for name, (error_name, exchange) in _openai_outcomes(context).items():
        error = json_error(exchange)
        wrong_type = error_class == "AuthenticationError" and (
            exchange.status != 401 or error.get("type") != "authentication_error")
        if error_name != error_class or wrong_type:
            failures.append(f"{name}: raised {error_name or 'nothing'}\n{exchange.describe(600)}")
    expect(not failures, f"expected every openai client call to raise {error_class}:\n" + "\n".join(failures))


@step("each openai client call succeeded")
def step_each_openai_call_succeeded(context: Any) -> None:
    """Every call of the last ``the openai client calls ...`` got a 200 answer.

        Then each openai client call succeeded
    """
    failures = [f"{name}: raised {error_name}\n{exchange.describe(600)}"
                for name, (error_name, exchange) in _openai_outcomes(context).items() if error_name is not None]
    expect(not failures, "expected every openai client call to succeed:\n" + "\n".join(failures))
    for name, (_, exchange) in _openai_outcomes(context).items():
        expect_status(exchange, 200)


@step("the API key {key} appears nowhere in what the suite reports")
def step_key_not_reported(context: Any, key: str) -> None:
    """The key is masked in everything the suite prints: the server command line and log (whose first line
    is the command), every request rendered as curl, and the failure report a failing step would show.

        Then the API key llama.cpp appears nowhere in what the suite reports
    """
    state = state_of(context)
    texts: dict[str, str] = {}
    if state.server is not None:
        texts["server command line"] = state.server.command.render()
        texts["server log"] = state.server.log_path.read_text(errors="replace")
    for number, exchange in enumerate(state.exchanges()):
        texts[f"request {number} ({exchange.method} {exchange.url})"] = exchange.describe(limit=10**6)
    texts["failure report"] = failure_report(context, "(probe)")
    requests_sent = [where for where in texts if where.startswith("request ")]
    expect(bool(requests_sent), "nothing was sent yet: call the server with the key first")
    leaks = [where for where, text in texts.items() if key in text]
    expect(not leaks, f"the API key appears in: {', '.join(leaks)}")
    masked = [where for where in requests_sent if "***" in texts[where]]
    expect(bool(masked), "no request shows a masked key: did the scenario send the key at all?")
