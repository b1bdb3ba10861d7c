"""``text.json``: the reply's JSON (or YAML, TOML) validated against a JSON Schema, optionally compared with a reference."""

from __future__ import annotations

import json
from typing import Any

from grpo_rewards import jsontext, params
from grpo_rewards.errors import SchemaProblem
from grpo_rewards.jsonschemas import first_error, validator

from .answer import valid_text
from .normalize import Normalizer, f1_of_tokens
from .parsing import FORMATS, SOURCES, NoData, Unparsable, find_data, parse_data
from .schema import credit

#: Labels: ``valid`` (the schema holds), ``invalid`` (it does not), ``unparsable`` (no data could be
#: read: a syntax error, too deep, too large), ``no_json`` (nothing to read), ``bad_schema`` (the
#: schema is at fault: None, the sample is left out), ``no_schema`` (no schema for the row: None),
#: ``no_reference`` (``reference_column`` is set and the row has no reference object: None).
OUTCOMES = ("valid", "invalid", "unparsable", "no_json", "bad_schema", "no_schema", "no_reference")
CREDIT = ("binary", "partial")
FIELD_MATCH = ("exact", "f1")
_NORMALIZER = Normalizer()


def _leaves(value: Any, path: str = "$") -> dict[str, Any]:
    """``{json_path: scalar}`` of every leaf (an empty container is a leaf), iteratively."""
    out: dict[str, Any] = {}
    stack = [(path, value)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, dict) and node:
            stack.extend((f"{where}.{k}" if k.isidentifier() else f"{where}[{json.dumps(k)}]", v)
                         for k, v in node.items())
        elif isinstance(node, list) and node:
            stack.extend((f"{where}[{i}]", v) for i, v in enumerate(node))
        else:
            out[where] = node
    return out


def _same(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but True is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


class Json:
    r"""Schema adherence of the reply's structured data: 1.0 when valid, else 0.0 or partial credit.

    Unit: none (a score in its range; no length is measured).

    The data is read from the last fenced block or the whole reply (``source``: ``auto``,
    ``fenced``, ``whole``), as ``format`` ``json`` (default), ``yaml`` or ``toml``, and validated
    with ``jsonschema`` against ``schema`` (a parameter: a dict or JSON text) or else the row's
    ``schema_column`` (default ``schema``; with ``schema`` given, set ``schema_column: null`` so that
    a dataset without that column is accepted). ``credit="partial"`` pays an invalid reply the fraction
    of schema constraints it satisfies (counted as :mod:`grpo_rewards_text.schema` says);
    ``"binary"`` (default) pays 0.0. ``check_formats`` asserts ``format`` (email, date, ...).

    With ``reference_column``, the data is also compared with the row's reference object (a
    dict/list or its JSON text) leaf by leaf: each leaf of the reference (by JSON path) scores 1.0
    when the reply has an equal value there (``field_match="exact"``) or the token F1 of the two
    values as text after SQuAD normalisation (``"f1"``; non-strings exactly); the value is then the
    schema value times the mean over the reference's leaves (extra fields in the reply cost
    nothing here: forbid them in the schema with ``additionalProperties: false``).

    Labels: :data:`OUTCOMES`; :meth:`explain` gives the first failing JSON path and its message.

    >>> score = Json(schema={"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}})
    >>> score('```json\n{"city": "Paris"}\n```'), score('{"city": 7}'), score("{city: Paris}"), score("  ")
    ((1.0, 'valid'), (0.0, 'invalid'), (0.0, 'unparsable'), (0.0, 'no_json'))
    >>> Json(credit="partial")('{"city": 7}', schema={"type": "object", "properties": {"city": {"type": "string"}}})
    (0.5, 'invalid')
    """

    def __init__(self, schema: Any = None, schema_column: str | None = "schema", format: str = "json", source: str = "auto",
                 credit: str = "binary", check_formats: bool = False, reference_column: str | None = None,
                 field_match: str = "exact") -> None:
        self.schema_column = params.column(schema_column, "schema_column", none_ok=True)
        self.format = params.choice(format, "format", FORMATS)
        self.source = params.choice(source, "source", SOURCES)
        self.credit = params.choice(credit, "credit", CREDIT)
        self.check_formats = params.boolean(check_formats, "check_formats")
        self.reference_column = params.column(reference_column, "reference_column", none_ok=True)
        self.field_match = params.choice(field_match, "field_match", FIELD_MATCH)
        self.schema = schema
        if schema is None and self.schema_column is None:
            raise ValueError("give the schema: schema (a JSON Schema) or schema_column")
        if schema is not None:
            try:
                validator(schema, self.check_formats)
            except SchemaProblem as exc:
                raise ValueError(f"schema: {exc}") from None

    def __repr__(self) -> str:
        return f"<Json format={self.format!r} credit={self.credit!r}>"

    def warmup(self) -> None:
        validator(self.schema if self.schema is not None else True, self.check_formats)

    def _validator(self, row: dict[str, Any]) -> Any:
        schema = self.schema if self.schema is not None else row.get(self.schema_column or "")
        if schema is None:
            return None
        return validator(schema, self.check_formats)

    def evaluate(self, text: str, **row: Any) -> dict[str, Any]:
        """Everything the reward knows about one reply: ``value``, ``label`` and the details."""
        try:
            v = self._validator(row)
        except SchemaProblem as exc:
            return {"value": None, "label": "bad_schema", "error": str(exc)}
        if v is None:
            return {"value": None, "label": "no_schema", "error": f"the row has no {self.schema_column!r} column value"}
        try:
            data = parse_data(find_data(valid_text(text), self.format, self.source), self.format)
        except NoData as exc:
            return {"value": 0.0, "label": "no_json", "error": str(exc)}
        except Unparsable as exc:
            return {"value": 0.0, "label": "unparsable", "error": str(exc)}
        try:
            error = first_error(v, data)
            satisfied, counted = credit(v, data) if self.credit == "partial" else (0, 1)
        except SchemaProblem as exc:
            return {"value": None, "label": "bad_schema", "error": str(exc)}
        if error is None:
            out: dict[str, Any] = {"value": 1.0, "label": "valid"}
        else:
            out = {"value": satisfied / counted if self.credit == "partial" else 0.0, "label": "invalid",
                   "path": error.json_path, "error": error.message[:300]}
            if self.credit == "partial":
                out["constraints"] = f"{satisfied}/{counted}"
        if self.reference_column is not None:
            fields = self._fields(data, row.get(self.reference_column))
            if fields is None:
                return {"value": None, "label": "no_reference",
                        "error": f"the row's {self.reference_column!r} is not a JSON object or list"}
            out["fields"] = fields
            out["value"] *= fields
        return out

    def _fields(self, data: Any, reference: Any) -> float | None:
        if isinstance(reference, str):
            try:
                reference = jsontext.loads(reference)
            except ValueError:
                return None
        if not isinstance(reference, (dict, list)):
            return None
        want = _leaves(reference)
        have = _leaves(data)
        scores = []
        for path, gold in want.items():
            if path not in have:
                scores.append(0.0)
            elif self.field_match == "f1" and isinstance(gold, str) and isinstance(have[path], str):
                scores.append(f1_of_tokens(_NORMALIZER.tokens(have[path]), _NORMALIZER.tokens(gold)))
            else:
                scores.append(float(_same(have[path], gold)))
        return sum(scores) / len(scores)

    def __call__(self, text: str, **row: Any) -> tuple[float | None, str]:
        result = self.evaluate(text, **row)
        return result["value"], result["label"]

    def explain(self, completion: Any, **row: Any) -> dict[str, Any]:
        """The outcome details of one completion: label, value, first failing JSON path and message."""
        from grpo_rewards import completion_text

        text = completion_text(completion)
        if text is None:
            return {"label": "unreadable"}
        return self.evaluate(text, **row)
