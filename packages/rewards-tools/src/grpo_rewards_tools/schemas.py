"""Tool definitions read into one form: a name, a description and a JSON Schema of the arguments.

Datasets write tools in several dialects; each is read here into standard JSON Schema:

- OpenAI's function format, ``{"type": "function", "function": {"name", "description", "parameters"}}``,
  or its inner object alone (Glaive, ToolACE, Hermes);
- BFCL's types inside JSON Schema: ``dict`` (object), ``float`` (number), ``tuple`` (array),
  ``any`` (no constraint);
- xLAM/APIGen's ``parameters``: a map from each argument to ``{"type": "str, optional",
  "description", "default"}`` with Python type names (``str``, ``int``, ``List[int]``, ...); an
  argument is required unless its type says ``optional`` or it has a ``default``.

>>> tool = read_tool({"name": "get_weather", "parameters": {"city": {"type": "str"}, "days": {"type": "int, optional"}}})
>>> tool.parameters["required"], tool.parameters["properties"]["days"]["type"]
(['city'], 'integer')
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from grpo_rewards import jsontext

_JSON_TYPES = {"string", "integer", "number", "boolean", "array", "object", "null"}
#: BFCL's and Python's type names -> JSON Schema's
_TYPE_NAMES = {"dict": "object", "float": "number", "tuple": "array", "str": "string", "int": "integer",
               "bool": "boolean", "list": "array", "set": "array", "double": "number", "long": "integer",
               "char": "string", "byte": "integer", "short": "integer", "hashmap": "object", "arraylist": "array",
               "map": "object", "mapping": "object", "sequence": "array", "iterable": "array", "none": "null"}
_PY_TYPE = re.compile(r"\s*(?:typing\.)?([A-Za-z_]+)")


class ToolFormatError(ValueError):
    """A tool definition that cannot be read."""


@dataclass(frozen=True)
class Tool:
    """One tool: its name, description and the JSON Schema its arguments must satisfy."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})

    def openai(self) -> dict[str, Any]:
        """The tool in OpenAI's function format (what chat templates' ``tools=`` take)."""
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": self.parameters}}


def _type_name(value: Any) -> str | list[str] | None:
    """A JSON Schema type for a BFCL or Python type name (None: no constraint)."""
    if isinstance(value, list):
        names = [_type_name(v) for v in value]
        flat = [n for n in names if isinstance(n, str)]
        return flat if len(flat) == len(names) else None
    if not isinstance(value, str):
        return None
    lowered = value.strip().lower()
    if lowered in _JSON_TYPES:
        return lowered
    if lowered in _TYPE_NAMES:
        return _TYPE_NAMES[lowered]
    match = _PY_TYPE.match(value)  # "List[int]", "Optional[str]", "str, optional", "Dict[str, Any]"
    if not match:
        return None
    head = match.group(1).lower()
    if head == "optional":
        inner = value[value.find("[") + 1:value.rfind("]")] if "[" in value else ""
        return _type_name(inner) if inner else None
    return _TYPE_NAMES.get(head) or (head if head in _JSON_TYPES else None)


def json_schema(schema: Any, depth: int = 0) -> Any:
    """A JSON Schema with BFCL's and Python's type names replaced by JSON Schema's (unknown names dropped)."""
    if depth > 50 or not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type":
            name = _type_name(value)
            if name is not None:
                out["type"] = name
        elif key in ("properties", "$defs", "definitions", "patternProperties") and isinstance(value, Mapping):
            out[key] = {k: json_schema(v, depth + 1) for k, v in value.items()}
        elif key in ("items", "additionalProperties", "not", "additionalItems") and isinstance(value, Mapping):
            out[key] = json_schema(value, depth + 1)
        elif key in ("anyOf", "oneOf", "allOf", "prefixItems") and isinstance(value, list):
            out[key] = [json_schema(v, depth + 1) for v in value]
        elif key == "items" and isinstance(value, list):
            out[key] = [json_schema(v, depth + 1) for v in value]
        elif key == "required" and not isinstance(value, list):
            continue  # a boolean ``required`` inside a property (some datasets): not JSON Schema
        else:
            out[key] = value
    return out


def _is_json_schema(parameters: Mapping[str, Any]) -> bool:
    kind = parameters.get("type")
    return isinstance(kind, str) and ("properties" in parameters or _type_name(kind) == "object")


def _xlam_parameters(parameters: Mapping[str, Any], where: str) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, spec in parameters.items():
        if not isinstance(spec, Mapping):
            raise ToolFormatError(f"{where}: argument {name!r} is described by a {type(spec).__name__}, not an object")
        kind = spec.get("type")
        prop: dict[str, Any] = {k: v for k, v in spec.items() if k not in ("type", "required")}
        type_name = _type_name(kind)
        if type_name is not None:
            prop["type"] = type_name
        properties[str(name)] = prop
        optional = isinstance(kind, str) and "optional" in kind.lower()
        if not optional and "default" not in spec and spec.get("required", True) is not False:
            required.append(str(name))
    return {"type": "object", "properties": properties, "required": required}


def read_tool(obj: Any, where: str = "tool") -> Tool:
    """A :class:`Tool` from any dialect this module's docstring names; raises :class:`ToolFormatError`."""
    if isinstance(obj, str):
        try:
            obj = jsontext.loads(obj)
        except ValueError as exc:
            raise ToolFormatError(f"{where}: not JSON ({exc})") from None
    if not isinstance(obj, Mapping):
        raise ToolFormatError(f"{where}: a {type(obj).__name__}, not an object")
    if isinstance(obj.get("function"), Mapping):
        obj = obj["function"]
    name = obj.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ToolFormatError(f"{where}: no name")
    where = f"{where} {name!r}"
    parameters = obj.get("parameters", obj.get("input_schema"))
    if parameters is None or parameters == {}:
        schema: dict[str, Any] = {"type": "object", "properties": {}}
    elif not isinstance(parameters, Mapping):
        raise ToolFormatError(f"{where}: parameters are a {type(parameters).__name__}, not an object")
    elif _is_json_schema(parameters):
        schema = json_schema(parameters)
        schema["type"] = "object"
    else:
        schema = _xlam_parameters(parameters, where)
    description = obj.get("description")
    return Tool(name.strip(), description if isinstance(description, str) else "", schema)


def read_tools(value: Any, where: str = "tools") -> tuple[Tool, ...]:
    """The tools of a ``tools`` column: a list (or its JSON text) of definitions, or a single one."""
    if isinstance(value, str):
        try:
            value = jsontext.loads(value) if value.strip() else []
        except ValueError as exc:
            raise ToolFormatError(f"{where}: not JSON ({exc})") from None
    if isinstance(value, Mapping):
        value = [value]
    if not isinstance(value, (list, tuple)):
        raise ToolFormatError(f"{where}: a {type(value).__name__}, not a list of tools")
    return tuple(read_tool(item, f"{where}[{i}]") for i, item in enumerate(value))
