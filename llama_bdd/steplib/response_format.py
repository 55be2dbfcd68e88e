"""``response_format`` on the OpenAI chat routes: ``json_object`` and ``json_schema``; the answer must parse
and validate (``jsonschema``). The knowledge is in ``llama_bdd.client.schema``.
"""

from __future__ import annotations

import json
from typing import Any

from llama_bdd.client.completion import sent_payload
from llama_bdd.client.schema import expect_json_answer, response_format_field

from .core import expect, state_of, step
from .core.scenario import last_oai_result


@step("the answer format is a JSON object")
def step_json_object(context: Any) -> None:
    """``response_format`` ``{"type": "json_object"}``.

        Given the answer format is a JSON object
    """
    state_of(context).request.fields["response_format"] = response_format_field(None)


@step("the answer format is JSON with the schema {schema}")
def step_json_schema(context: Any, schema: str) -> None:
    """``response_format`` ``json_schema`` with this JSON schema.

        Given the answer format is JSON with the schema {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    """
    state_of(context).request.fields["response_format"] = response_format_field(json.loads(schema))


@step("the answer is JSON in the requested format")
def step_answer_in_format(context: Any) -> None:
    """The last answer's content parses as JSON and validates against the ``response_format`` it was sent.

        Then the answer is JSON in the requested format
    """
    result = last_oai_result(context)
    response_format = sent_payload(result).get("response_format")
    expect(isinstance(response_format, dict), "the request sent no response_format", result.exchange)
    expect_json_answer(result.content, response_format, result.exchange)
