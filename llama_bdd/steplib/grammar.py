"""Constrained generation: the text a ``grammar`` (GBNF) or a ``json_schema`` allowed, checked as a whole.

The schema check is ``llama_bdd.client.schema``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from llama_bdd.client.completion import sent_payload
from llama_bdd.client.schema import schema_violations

from .core import expect, step
from .core.scenario import last_completion

@step("the completion text fully matches {pattern}")
def step_text_fully_matches(context: Any, pattern: str) -> None:
    """The whole text of the last result matches the regular expression (``re.fullmatch``).

        Then the completion text fully matches [0-9]{3}-[a-z]{2}
    """
    result = last_completion(context)
    expect(re.fullmatch(pattern, result.content, flags=re.DOTALL) is not None,
           f"the text {result.content!r} does not fully match /{pattern}/", result.exchange)


@step("the completion text is JSON that conforms to the request's json_schema")
def step_text_conforms_to_schema(context: Any) -> None:
    """The last result's text parses as JSON and conforms to the ``json_schema`` field the request sent.

        Then the completion text is JSON that conforms to the request's json_schema
    """
    result = last_completion(context)
    schema = sent_payload(result).get("json_schema")
    expect(isinstance(schema, dict), "the request sent no json_schema object", result.exchange)
    try:
        document = json.loads(result.content)
    except ValueError as error:
        raise AssertionError(f"the text is not JSON ({error}): {result.content!r}\n"
                             f"{result.exchange.describe() if result.exchange else ''}") from None
    problems = schema_violations(document, schema)
    expect(not problems, "the JSON does not conform to the schema:\n  " + "\n  ".join(problems), result.exchange)
