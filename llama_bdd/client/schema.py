"""JSON Schema checks on generated JSON (``json_schema``, ``response_format``, tool arguments).

Validation is the ``jsonschema`` library's (the validator class the schema's ``$schema`` names, Draft 2020-12
by default); a schema that is itself invalid is reported as a problem, not silently accepted.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
from jsonschema.exceptions import SchemaError

from .checks import expect


def _where(path: Any) -> str:
    """``$.a[0].b`` for the error path ``['a', 0, 'b']``."""
    text = "$"
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text


def schema_violations(value: Any, schema: dict[str, Any]) -> list[str]:
    """Where ``value`` breaks ``schema`` (empty when it conforms), one line per violation."""
    validator_class = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        validator_class.check_schema(schema)
    except SchemaError as error:
        return [f"the schema itself is invalid: {error.message}"]
    errors = sorted(validator_class(schema).iter_errors(value), key=lambda error: list(error.absolute_path))
    return [f"{_where(error.absolute_path)}: {error.message}" for error in errors]


def response_format_field(schema: dict[str, Any] | None) -> dict[str, Any]:
    """OpenAI's ``response_format``: ``json_object`` without a schema, ``json_schema`` (named, strict) with one."""
    if schema is None:
        return {"type": "json_object"}
    return {"type": "json_schema", "json_schema": {"name": "answer", "strict": True, "schema": schema}}


def expect_json_answer(text: str, response_format: dict[str, Any], exchange: Any = None) -> Any:
    """The answer's text parses as JSON; a JSON object for ``json_object`` (unless it names a ``schema``),
    valid against the schema for ``json_schema``. Returns the parsed document."""
    detail = f"\n{exchange.describe()}" if exchange is not None else ""
    expect(isinstance(text, str), f"the answer's content is not text: {text!r}", exchange)
    try:
        document = json.loads(text)
    except ValueError as error:
        raise AssertionError(f"the answer is not JSON ({error}): {text!r}{detail}") from None
    if response_format.get("type") == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema") or {"type": "object"}
    else:
        schema = response_format.get("schema") or {"type": "object"}
    problems = schema_violations(document, schema)
    expect(not problems, "the JSON answer breaks the requested schema:\n  " + "\n  ".join(problems), exchange)
    return document
