"""Partial credit for JSON Schema validation, as a count of constraints.

**Validators** are the core's (:mod:`grpo_rewards.jsonschemas`, shared with ``tools.schema_valid``): a schema is
checked and compiled once, never fetches a remote ``$ref``, and what is the schema's fault is a
:class:`SchemaProblem` naming it.

**Partial credit** (:func:`credit`) is ``satisfied / counted`` over the constraints a schema puts on
the instance, counted by walking the schema beside the instance:

- each assertion keyword of a schema node (``type``, ``enum``, ``const``, ``minimum``, ``pattern``,
  ``minItems``, ``uniqueItems``, ``format`` with a format checker, ``anyOf``, ``oneOf``, ``not``,
  ``if``, ``contains``, ``patternProperties``, ``dependentRequired``, ...) applied at an instance
  location is **one** constraint, satisfied when jsonschema's own keyword function reports no error
  there (``anyOf``/``oneOf``/``not``/``if`` are not looked into);
- ``required`` counts **one per name**;
- ``properties`` descends into each property the instance has; a *required* property the
  instance lacks also fails every constraint its subschema would have applied to it (counted by
  the same rules, through required sub-properties), so leaving out a required object costs its
  whole subtree, not one point;
- ``items``/``prefixItems`` descend into each element, ``additionalProperties`` (a schema) into each
  extra property, ``allOf`` into each branch, and a local ``$ref`` (``#/...``) into its target
  (at most :data:`MAX_REF_CHAIN` references in a row without descending);
- keywords that assert nothing (``title``, ``$defs``, ``default``, ...) are not counted, nor those
  that do not apply to the instance's JSON type (``minLength`` on a number, ``additionalProperties``
  on a string: jsonschema ignores them there), so a string against an object schema scores 0/1
  (its ``type``), not the share of object keywords that hold vacuously.

An instance jsonschema finds valid scores 1.0; one it finds invalid scores below 1.0 even when the
walk found no failed constraint (one extra failed constraint is then counted).

>>> from grpo_rewards.jsonschemas import validator
>>> v = validator({"type": "object", "required": ["name", "age"],
...                "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}}})
>>> credit(v, {"name": "Ada", "age": 36}), credit(v, {"name": "Ada", "age": -1}), credit(v, {})
((6, 6), (5, 6), (1, 6))
"""

from __future__ import annotations

import re
from typing import Any

from grpo_rewards.errors import SchemaProblem
from grpo_rewards.jsonschemas import first_error

MAX_REF_CHAIN = 16
#: Keywords that only apply to one JSON type (jsonschema ignores them on the others: so does the count).
_APPLIES_TO: dict[str, Any] = {
    **dict.fromkeys(("additionalProperties", "patternProperties", "propertyNames", "minProperties", "maxProperties",
                     "dependentRequired", "dependentSchemas", "dependencies", "unevaluatedProperties"), dict),
    **dict.fromkeys(("additionalItems", "contains", "minItems", "maxItems", "uniqueItems", "minContains",
                     "maxContains", "unevaluatedItems"), list),
    **dict.fromkeys(("minLength", "maxLength", "pattern"), str),
    **dict.fromkeys(("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"), (int, float)),
}
#: Keywords the walk descends through instead of counting.
_WALKED = frozenset({"properties", "required", "items", "prefixItems", "additionalProperties", "allOf", "$ref"})

def _member(schema: dict[str, Any], keyword: str, kind: type) -> Any:
    """``schema[keyword]`` when it is a ``kind`` (list or dict), else an empty one."""
    value = schema.get(keyword)
    return value if isinstance(value, kind) else kind()


def _local(root: Any, ref: str) -> Any:
    """The target of a local JSON-pointer ``$ref`` (``#/$defs/x``), or None."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    node = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


class _Walk:
    """One count of (satisfied, counted) over a schema and an instance (see the module)."""

    def __init__(self, v: Any) -> None:
        self.v = v
        self.root = v.schema
        self.keywords = v.VALIDATORS
        self.satisfied = 0
        self.counted = 0

    def check(self, schema: Any, keyword: str, instance: Any) -> None:
        self.counted += 1
        function = self.keywords[keyword]
        errors = function(self.v.evolve(schema=schema), schema[keyword], instance, schema)
        try:
            if next(iter(errors or ()), None) is None:
                self.satisfied += 1
        except OverflowError:  # as first_error: a number past a float's range does not satisfy the keyword
            pass

    def walk(self, schema: Any, instance: Any, chain: int = 0) -> None:
        if isinstance(schema, bool):
            self.counted += 1
            self.satisfied += schema
            return
        if not isinstance(schema, dict):
            return
        for keyword, value in schema.items():
            if keyword not in self.keywords:
                continue
            kind = _APPLIES_TO.get(keyword)
            if kind is not None and (not isinstance(instance, kind) or isinstance(instance, bool)):
                continue
            if keyword not in _WALKED or (keyword == "additionalProperties" and isinstance(value, bool)):
                self.check(schema, keyword, instance)
            elif keyword == "required":
                if isinstance(instance, dict) and isinstance(value, list):
                    self.counted += len(value)
                    self.satisfied += sum(name in instance for name in value)
            elif keyword == "properties":
                self._properties(schema, value, instance)
            elif keyword == "additionalProperties":
                self._additional(schema, value, instance)
            elif keyword in ("items", "prefixItems"):
                self._items(schema, keyword, value, instance)
            elif keyword == "allOf":
                for branch in value:
                    self.walk(branch, instance, chain)
            elif keyword == "$ref":
                target = _local(self.root, value)
                if target is None or chain >= MAX_REF_CHAIN:
                    self.check(schema, keyword, instance)
                else:
                    self.walk(target, instance, chain + 1)

    def _properties(self, schema: dict[str, Any], props: Any, instance: Any) -> None:
        if not isinstance(instance, dict) or not isinstance(props, dict):
            return
        required = _member(schema, "required", list)
        for name, sub in props.items():
            if name in instance:
                self.walk(sub, instance[name])
            elif name in required:
                self.counted += count(sub, self.root, self.keywords)

    def _additional(self, schema: dict[str, Any], sub: Any, instance: Any) -> None:
        if not isinstance(instance, dict):
            return
        known = _member(schema, "properties", dict)
        patterns = list(_member(schema, "patternProperties", dict))
        for name, item in instance.items():
            if name not in known and not any(re.search(p, name) for p in patterns):
                self.walk(sub, item)

    def _items(self, schema: dict[str, Any], keyword: str, value: Any, instance: Any) -> None:
        if not isinstance(instance, list):
            return
        if keyword == "prefixItems" or isinstance(value, list):  # prefixItems, or a draft-7 tuple of items
            for sub, item in zip(value, instance):
                self.walk(sub, item)
            return
        start = len(schema["prefixItems"]) if isinstance(schema.get("prefixItems"), list) else 0
        for item in instance[start:]:
            self.walk(value, item)


def count(schema: Any, root: Any, keywords: Any, chain: int = 0) -> int:
    """How many constraints ``schema`` would apply to a value that is missing (see the module);
    ``keywords``: the keywords of the dialect (a validator's ``VALIDATORS``)."""
    if isinstance(schema, bool):
        return 1
    if not isinstance(schema, dict):
        return 0
    total = 0
    for keyword, value in schema.items():
        if keyword == "required" and isinstance(value, list):
            total += len(value)
            props = _member(schema, "properties", dict)
            total += sum(count(props[name], root, keywords, chain) for name in value if name in props)
        elif keyword not in keywords:
            continue
        elif keyword == "allOf" and isinstance(value, list):
            total += sum(count(branch, root, keywords, chain) for branch in value)
        elif keyword == "$ref" and isinstance(value, str):
            target = _local(root, value)
            total += 1 if target is None or chain >= MAX_REF_CHAIN else count(target, root, keywords, chain + 1)
        elif keyword in ("properties", "items", "prefixItems") or (keyword == "additionalProperties"
                                                                    and not isinstance(value, bool)):
            continue
        else:
            total += 1
    return total


def credit(v: Any, instance: Any) -> tuple[int, int]:
    """``(satisfied, counted)`` constraints of the schema of validator ``v`` on ``instance`` (see the module).

    ``satisfied == counted`` exactly when jsonschema finds ``instance`` valid.
    """
    valid = first_error(v, instance) is None
    walk = _Walk(v)
    try:
        walk.walk(v.schema, instance)
    except RecursionError:
        raise SchemaProblem("the schema's $ref chain never ends (a $ref cycle that consumes no input)") from None
    if valid:
        return walk.counted, walk.counted
    if walk.satisfied >= walk.counted:
        return walk.satisfied, walk.satisfied + 1
    return walk.satisfied, walk.counted
