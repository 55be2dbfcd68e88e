"""JSON Schema checks on generated JSON (``json_schema``, ``response_format``, tool arguments).

The check covers the JSON Schema keywords the scenarios use (``type``, ``properties``, ``required``,
``additionalProperties``, ``items``, ``enum``, ``const``, ``minimum``, ``maximum``, ``minLength``,
``maxLength``, ``minItems``, ``maxItems``); any other keyword fails the check rather than being ignored.
"""

from __future__ import annotations

from typing import Any

_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}
_KNOWN = {"type", "properties", "required", "additionalProperties", "items", "enum", "const", "minimum", "maximum",
          "minLength", "maxLength", "minItems", "maxItems", "title", "description"}


def schema_violations(value: Any, schema: dict[str, Any], where: str = "$") -> list[str]:
    """Where ``value`` breaks ``schema`` (empty when it conforms)."""
    unknown = set(schema) - _KNOWN
    if unknown:
        return [f"{where}: the suite's schema check does not know {sorted(unknown)}"]
    problems: list[str] = []
    kind = schema.get("type")
    if kind == "integer":
        if not isinstance(value, int) or isinstance(value, bool):
            return [f"{where}: {value!r} is not an integer"]
    elif kind == "number":
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return [f"{where}: {value!r} is not a number"]
    elif kind is not None and not isinstance(value, _TYPES[kind]):
        return [f"{where}: {value!r} is not of type {kind}"]
    if "const" in schema and value != schema["const"]:
        problems.append(f"{where}: {value!r} is not the constant {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        problems.append(f"{where}: {value!r} is not one of {schema['enum']!r}")
    if "minimum" in schema and value < schema["minimum"]:
        problems.append(f"{where}: {value!r} < minimum {schema['minimum']}")
    if "maximum" in schema and value > schema["maximum"]:
        problems.append(f"{where}: {value!r} > maximum {schema['maximum']}")
    if "minLength" in schema and len(value) < schema["minLength"]:
        problems.append(f"{where}: {value!r} is shorter than {schema['minLength']}")
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        problems.append(f"{where}: {value!r} is longer than {schema['maxLength']}")
    if "minItems" in schema and len(value) < schema["minItems"]:
        problems.append(f"{where}: {len(value)} items, fewer than {schema['minItems']}")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        problems.append(f"{where}: {len(value)} items, more than {schema['maxItems']}")
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                problems.append(f"{where}: required property {name!r} is missing")
        for name, item in value.items():
            if name in properties:
                problems += schema_violations(item, properties[name], f"{where}.{name}")
            elif schema.get("additionalProperties") is False:
                problems.append(f"{where}: property {name!r} is not allowed")
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            problems += schema_violations(item, schema["items"], f"{where}[{index}]")
    return problems
