"""Calls validated against their tools' JSON schemas with ``jsonschema`` (validators built once per schema).

>>> from grpo_rewards_tools.calls import ReadCalls, Call
>>> from grpo_rewards_tools.rows import ToolRow
>>> from grpo_rewards_tools.schemas import read_tool
>>> row = ToolRow("native", (read_tool({"name": "f", "parameters": {"type": "object",
...     "properties": {"unit": {"type": "string", "enum": ["C", "F"]}}}}),))
>>> validate_calls(ReadCalls((Call("f", {"unit": "C"}), Call("f", {"unit": "K"}))), row)
(1, 'invalid_arguments')
"""

from __future__ import annotations

import functools
import importlib
import json
import math
from typing import Any

from .calls import Call, ReadCalls
from .rows import RowFormatError, ToolRow
from .schemas import Tool

VALIDATION_MODES = ("all", "fraction")
#: a call's label, worst first: the label of a completion is its worst call's
_SEVERITY = ("malformed_call", "unknown_tool", "invalid_arguments", "valid")


@functools.lru_cache(maxsize=1024)
def _validator(schema_text: str, allow_extra: bool) -> Any:
    # imported on first use (registering the plugin loads no scorer code); through importlib because
    # jsonschema ships no type information (its value is Any here either way)
    jsonschema = importlib.import_module("jsonschema")

    schema = json.loads(schema_text)
    if not allow_extra and "additionalProperties" not in schema and "patternProperties" not in schema:
        schema["additionalProperties"] = False
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise RowFormatError(f"its parameters are not a valid JSON Schema: {exc.message}") from None
    return cls(schema)


def validator(tool: Tool, allow_extra: bool = False) -> Any:
    """A ``jsonschema`` validator of ``tool``'s arguments; raises RowFormatError for an invalid schema."""
    try:
        return _validator(json.dumps(tool.parameters, sort_keys=True, default=str), allow_extra)
    except RecursionError:  # jsonschema's schema check recurses a few frames per level: ~200 levels of JSON text
        raise RowFormatError(f"tool {tool.name!r}: its parameters are nested too deeply to read") from None
    except RowFormatError as exc:
        raise RowFormatError(f"tool {tool.name!r}: {exc}") from None


def call_label(call: Call, row: ToolRow, allow_extra: bool = False) -> str:
    """``valid``, ``unknown_tool`` or ``invalid_arguments`` for one call."""
    tool = row.tool(call.name)
    if tool is None:
        return "unknown_tool"
    check = validator(tool, allow_extra)
    if not _finite(call.arguments):  # JSON has no NaN or Infinity (Python's reader and 1e999 make them)
        return "invalid_arguments"
    try:
        return "valid" if check.is_valid(call.arguments) else "invalid_arguments"
    except (OverflowError, ValueError):  # a number jsonschema's keywords cannot compute with (multipleOf divides an
        # integer past a float's range as a float: OverflowError; ValueError where a conversion refuses the value)
        return "invalid_arguments"
    except RecursionError:  # (the schema's, found only when a call reaches it; text.json's schema.first_error alike)
        raise RowFormatError(f"tool {tool.name!r}: its parameters' $ref chain never ends (a $ref cycle that "
                             "consumes no input)") from None
    except Exception as exc:
        if not isinstance(exc, importlib.import_module("referencing.exceptions").Unresolvable):
            raise
        # a $ref to nowhere, or a remote one (never fetched: jsonschema's registry retrieves nothing)
        raise RowFormatError(f"tool {tool.name!r}: its parameters hold a $ref that does not resolve here "
                             f"({str(exc)[:160]})") from None


def _finite(value: Any, depth: int = 0) -> bool:
    """Whether no number in ``value`` (JSON values, nested at most 100 levels) is NaN or infinite."""
    if isinstance(value, float):
        return math.isfinite(value)
    if depth > 100 or not isinstance(value, (dict, list, tuple)):
        return True
    return all(_finite(v, depth + 1) for v in (value.values() if isinstance(value, dict) else value))


def validate_calls(calls: ReadCalls, row: ToolRow, allow_extra: bool = False) -> tuple[int, str]:
    """How many of the calls are valid, and the label of the worst one (malformed calls are never valid)."""
    labels = [call_label(call, row, allow_extra) for call in calls.calls]
    if calls.malformed:
        labels.append("malformed_call")
    return labels.count("valid"), min(labels, key=_SEVERITY.index, default="valid")
