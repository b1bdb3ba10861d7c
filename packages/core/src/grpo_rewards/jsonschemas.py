"""JSON Schema validators that never fetch, and the one reading of what went wrong: the schema or the instance.

The rewards that validate against a JSON Schema (``text.json``, ``tools.schema_valid``) share this, so a schema
is refused for the same reasons, with the same words, whichever reads it. ``jsonschema`` (and ``referencing``) are
imported on first use: the core does not depend on them, the packages that call this do.

A schema (a dict, a bool, or the JSON text of one) is checked against its meta-schema and compiled once
(remembered for the last :data:`CACHE_SIZE` schemas): the dialect its ``$schema`` names (default Draft 2020-12),
and a ``referencing`` registry whose ``retrieve`` refuses every URI, so a remote ``$ref`` is never fetched
(jsonschema's own default downloads it). What is the schema's fault is a
:class:`~grpo_rewards.errors.SchemaProblem` naming it: not JSON, not a schema, a remote ``$ref``, a ``$ref`` to
nowhere, a ``$ref`` cycle that consumes no input (found only when an instance reaches it). What is the instance's
is a validation error: a number the schema's keywords cannot compute with (``multipleOf`` on an integer past a
float's range) is one, not a crash.

>>> v = validator({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
>>> first_error(v, {"n": 3}) is None, first_error(v, {"n": "3"}).message
(True, "'3' is not of type 'integer'")
>>> validator({"$ref": "https://example.com/s.json"})
Traceback (most recent call last):
...
grpo_rewards.errors.SchemaProblem: remote $ref 'https://example.com/s.json' is never fetched: put the referenced \
schema under $defs and refer to it as '#/$defs/...'
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from . import jsontext
from .errors import SchemaProblem

CACHE_SIZE = 256

_cache: OrderedDict[str, Any] = OrderedDict()
_lock = threading.Lock()


def _refuse(uri: str) -> Any:
    raise SchemaProblem(f"remote $ref {uri!r} is never fetched: put the referenced schema under $defs "
                        "and refer to it as '#/$defs/...'")


def _walk_refs(schema: Any) -> Iterator[tuple[str, str]]:
    """Every ``($id or '', $ref)`` string in a schema, iteratively."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("$ref", "$dynamicRef") and isinstance(value, str):
                    yield "ref", value
                elif key == "$id" and isinstance(value, str):
                    yield "id", value
                else:
                    stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)


def remote_refs(schema: Any) -> list[str]:
    """The ``$ref`` values that point outside the schema (not ``#...`` and not one of its own ``$id``)."""
    found = list(_walk_refs(schema))
    ids = {value.rstrip("#") for kind, value in found if kind == "id"}
    return [value for kind, value in found
            if kind == "ref" and not value.startswith("#") and value.split("#", 1)[0] not in ids]


def load_schema(value: Any) -> dict[str, Any] | bool:
    """A schema from a column or parameter value: a dict, a bool, or JSON text of one."""
    if isinstance(value, str):
        try:
            value = jsontext.loads(value)
        except ValueError as exc:
            raise SchemaProblem(f"the schema is not JSON: {exc}") from None
    if not isinstance(value, (dict, bool)):
        raise SchemaProblem(f"a schema is a JSON object or a boolean, got {type(value).__name__}")
    return value


def validator(schema: Any, formats: bool = False) -> Any:
    """The compiled validator of ``schema`` (remembered); raises :class:`~grpo_rewards.errors.SchemaProblem`.
    ``formats``: ``format`` is checked (jsonschema's format checker of the dialect), not only annotated."""
    schema = load_schema(schema)
    try:
        key = json.dumps(schema, sort_keys=True) + ("|formats" if formats else "")
    except RecursionError:
        raise SchemaProblem("the schema is nested too deep") from None
    except (TypeError, ValueError) as exc:
        raise SchemaProblem(f"the schema is not JSON: {str(exc)[:200]}") from None
    with _lock:
        found = _cache.get(key)
        if found is not None:
            _cache.move_to_end(key)
            return found
    built = _compile(schema, formats)
    with _lock:
        _cache[key] = built
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return built


def _compile(schema: Any, formats: bool) -> Any:
    import jsonschema
    import referencing
    from jsonschema.validators import validator_for

    remote = remote_refs(schema)
    if remote:
        _refuse(remote[0])
    cls = validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise SchemaProblem(f"not a valid {cls.__name__[:-9]} schema at {exc.json_path}: {exc.message[:200]}") from None
    except RecursionError:
        raise SchemaProblem("the schema is nested too deep") from None
    registry_type: Any = referencing.Registry  # an attrs class: its ``retrieve`` field is a keyword
    registry = registry_type(retrieve=_refuse)
    return cls(schema, registry=registry, format_checker=cls.FORMAT_CHECKER if formats else None)


def first_error(v: Any, instance: Any) -> Any:
    """jsonschema's first error for ``instance`` (None when valid); raises :class:`~grpo_rewards.errors.SchemaProblem`
    for what is the schema's fault."""
    try:
        return next(iter(v.iter_errors(instance)), None)
    except (OverflowError, ValueError):  # multipleOf on an integer past a float's range, a conversion that refuses
        from jsonschema import ValidationError  # the value: the instance's, not the schema's

        return ValidationError("a number the schema's checks cannot compute with (an integer past a float's range)")
    except RecursionError:
        raise SchemaProblem("the schema's $ref chain never ends (a $ref cycle that consumes no input)") from None
    except SchemaProblem:
        raise
    except Exception as exc:  # referencing.exceptions.Unresolvable and its kin: a $ref to nowhere
        cause = exc.__cause__ or exc.__context__
        if isinstance(cause, SchemaProblem):
            raise cause from None
        raise SchemaProblem(f"{type(exc).__name__}: {str(exc)[:200]}") from None
