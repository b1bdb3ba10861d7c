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

import math
from typing import Any

from grpo_rewards import jsonschemas
from grpo_rewards.errors import SchemaProblem

from .calls import Call, ReadCalls
from .rows import RowFormatError, ToolRow
from .schemas import Tool

VALIDATION_MODES = ("all", "fraction")
#: a call's label, worst first: the label of a completion is its worst call's
_SEVERITY = ("malformed_call", "unknown_tool", "invalid_arguments", "valid")


def validator(tool: Tool, allow_extra: bool = False) -> Any:
    """A ``jsonschema`` validator of ``tool``'s arguments (the core's, :mod:`grpo_rewards.jsonschemas`, shared with
    ``text.json``); raises RowFormatError for a schema that cannot be used. Without ``allow_extra``, an argument
    the schema does not name is an error unless the schema says otherwise (``additionalProperties``)."""
    schema = tool.parameters
    if not allow_extra and isinstance(schema, dict) and "additionalProperties" not in schema \
            and "patternProperties" not in schema:
        schema = {**schema, "additionalProperties": False}
    try:
        return jsonschemas.validator(schema)
    except SchemaProblem as exc:
        raise RowFormatError(f"tool {tool.name!r}: its parameters: {exc}") from None


def call_label(call: Call, row: ToolRow, allow_extra: bool = False) -> str:
    """``valid``, ``unknown_tool`` or ``invalid_arguments`` for one call."""
    tool = row.tool(call.name)
    if tool is None:
        return "unknown_tool"
    check = validator(tool, allow_extra)
    if not _finite(call.arguments):  # JSON has no NaN or Infinity (Python's reader and 1e999 make them)
        return "invalid_arguments"
    try:
        return "valid" if jsonschemas.first_error(check, call.arguments) is None else "invalid_arguments"
    except SchemaProblem as exc:  # (the schema's, found only when a call reaches it: a $ref cycle, to nowhere)
        raise RowFormatError(f"tool {tool.name!r}: its parameters: {exc}") from None


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
