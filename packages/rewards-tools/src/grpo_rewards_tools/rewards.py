"""``tools.call_match`` and ``tools.schema_valid``: a completion's tool calls scored against its row.

Both read the calls of the whole completion (a trajectory of messages, or text:
:mod:`grpo_rewards_tools.calls`) and the row in any format of :mod:`grpo_rewards_tools.rows`.
A row that cannot be read scores ``None`` (label ``bad_row``); training refuses such rows before
it starts (``check_rows``). A row without what a reward scores against (each tool-call column ``None``, as
another task's row in a mixed dataset) scores ``None`` quietly: ``no_gold`` (``tools.call_match``),
``no_tools`` (``tools.schema_valid``).
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from importlib import import_module
from typing import Any

from grpo_rewards import check_each_row
from grpo_rewards import params as checks

from .arguments import STRING_RULES, Comparison
from .calls import read_calls
from .matching import MODES, match
from .rows import NoToolColumns, RowFormatError, ToolRow, check_rows, has_no_tools_column, read_row
from .validation import VALIDATION_MODES, validate_calls, validator

#: the columns a row's format is read from (a row is read once per batch, not once per completion)
_ROW_COLUMNS = ("gold_calls", "answers", "ground_truth", "conversations", "chat", "system", "tools", "function",
                "query", "question", "prompt")
_CACHE_SIZE = 256


class _RowCache:
    """Rows read once per batch: TRL repeats a row's column objects for each of its completions."""

    def __init__(self) -> None:
        self.rows: dict[tuple[int, ...], tuple[tuple[Any, ...], ToolRow | RowFormatError]] = {}

    def read(self, row: Mapping[str, Any]) -> ToolRow:
        values = tuple(map(row.get, _ROW_COLUMNS))
        key = tuple(map(id, values))
        hit = self.rows.get(key)
        if hit is not None and all(map(operator.is_, hit[0], values)):
            read = hit[1]
        else:
            try:
                read = read_row(row)
            except RowFormatError as exc:
                read = exc
            if len(self.rows) >= _CACHE_SIZE:
                self.rows.clear()
            self.rows[key] = (values, read)  # the values are kept alive with their ids
        if isinstance(read, RowFormatError):
            raise read
        return read


class _ToolReward:
    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_rows"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._rows = _RowCache()


class CallMatch(_ToolReward):
    r"""The completion's tool calls against the row's gold calls, in [0, 1] (unit: none).

    Exact rule: calls and gold calls are paired by maximum bipartite matching (order never
    matters); a call matches a gold call when the tool name is the same and every argument has an
    accepted value (compared as JSON: ``tolerance`` for numbers, ``numeric_strings`` for ``"5"``
    against ``5``, ``strings``: ``exact``, ``whitespace``, ``casefold`` or ``loose``). With
    ``matched`` pairs, ``gold`` gold calls and ``made`` calls (unreadable ones included):
    ``mode: f1`` (default) 2·matched/(gold + made), so junk calls cost reward; ``fraction``
    matched/max(gold, made); ``exact`` 1.0 only when all match and none is extra. A gold with
    no call expects a plain answer: 1.0 without a call, 0.0 with one. Labels ``matched``,
    ``partial``, ``wrong_tool``, ``wrong_arguments``, ``missing_call``, ``extra_call``,
    ``unexpected_call``, ``no_call``, ``malformed_call``; ``bad_row`` (``None``) for a row whose gold
    calls cannot be read, ``no_gold`` (``None``) for a row without any (another task's row).

    >>> score = CallMatch()
    >>> row = {"gold_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}
    >>> score('<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>', **row)
    (1.0, 'matched')
    >>> score('[get_weather(city="Paris"), get_weather(city="Rome")]', **row)
    (0.6666666666666666, 'extra_call')
    >>> score("It is sunny in Paris.", **row)
    (0.0, 'no_call')
    """

    def __init__(self, mode: str = "f1", tolerance: float = 1e-6, numeric_strings: bool = True,
                 strings: str = "whitespace", max_calls: int = 64) -> None:
        self.mode = checks.choice(mode, "mode", MODES)
        self.rule = Comparison(tolerance=checks.number(tolerance, "tolerance", low=0.0, high=1.0),
                               numeric_strings=checks.boolean(numeric_strings, "numeric_strings"),
                               strings=checks.choice(strings, "strings", STRING_RULES))
        self.max_calls = checks.integer(max_calls, "max_calls", low=1, high=10_000)
        self._rows = _RowCache()

    def __repr__(self) -> str:
        return f"<CallMatch mode={self.mode} strings={self.rule.strings}>"

    @staticmethod
    def check_rows(rows: Any) -> list[str]:
        """Before training: a line per row (at most 5) whose gold calls cannot be read."""
        return check_rows(rows, need_gold=True)

    def __call__(self, text: str, completion: Any = None, **row: Any) -> tuple[float | None, str]:
        try:
            read = self._rows.read(row)
        except RowFormatError as exc:
            return None, "no_gold" if isinstance(exc, NoToolColumns) else "bad_row"
        if read.gold is None:  # tools alone: nothing to match against
            return None, "no_gold"
        calls = read_calls(text if completion is None else completion)
        result = match(calls.calls, read.gold, len(calls.malformed), self.rule, self.max_calls)
        return result.value(self.mode), result.label


def _validate_tools(row: Mapping[str, Any]) -> None:
    """Each of the row's tools has parameters that are a valid JSON Schema (a RowFormatError otherwise)."""
    for tool in read_row(row).tools:
        validator(tool)


class SchemaValid(_ToolReward):
    r"""Whether the completion's calls name the row's tools with arguments their JSON schemas accept, in [0, 1] (unit: none).

    Exact rule: each call must name a tool of the row's ``tools`` (any format of
    :mod:`grpo_rewards_tools.rows`) and its arguments must validate against that tool's JSON
    Schema (``jsonschema``: required arguments, types, enums, ...); an argument the schema does not
    name is an error unless ``allow_extra_arguments`` (or the schema's own ``additionalProperties``
    allows it). ``mode: all`` (default) 1.0 when every call is valid, else 0.0; ``fraction``
    valid calls / calls. A completion without any call is not applicable: ``None`` (``no_call``).
    Labels ``valid``, ``unknown_tool``, ``invalid_arguments``, ``malformed_call``, ``no_call``, ``bad_row``,
    ``no_tools`` (``None``: a row without tools, another task's row).
    Registered with a hard deadline (10 s: 0.0, ``timeout``), in worker processes: a schema's ``pattern`` is the
    dataset's regular expression run on the model's string, and one may backtrack for ever on a near miss.

    >>> score = SchemaValid()
    >>> row = {"tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {
    ...     "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]}
    >>> score('get_weather(city="Paris")', **row), score('get_weather(town="Paris")', **row)
    ((1.0, 'valid'), (0.0, 'invalid_arguments'))
    """

    def __init__(self, mode: str = "all", allow_extra_arguments: bool = False) -> None:
        self.mode = checks.choice(mode, "mode", VALIDATION_MODES)
        self.allow_extra_arguments = checks.boolean(allow_extra_arguments, "allow_extra_arguments")
        self._rows = _RowCache()

    def __repr__(self) -> str:
        return f"<SchemaValid mode={self.mode}>"

    @staticmethod
    def warmup() -> None:
        """In each worker process: import jsonschema before the first sample's deadline starts."""
        import_module("jsonschema")

    @staticmethod
    def check_rows(rows: Any) -> list[str]:
        """Before training: a line per row (at most 5) whose tools cannot be read, that has none, or whose
        tool's parameters are not a valid JSON Schema."""
        return check_rows(rows, need_gold=False, need_tools=True) or check_each_row(rows, _validate_tools, RowFormatError)

    def __call__(self, text: str, completion: Any = None, **row: Any) -> tuple[float | None, str]:
        try:
            read = self._rows.read(row)
        except RowFormatError as exc:
            return None, "no_tools" if isinstance(exc, NoToolColumns) else "bad_row"
        if not read.tools:
            return None, "no_tools" if has_no_tools_column(read, row) else "bad_row"
        calls = read_calls(text if completion is None else completion)
        if not calls.made:
            return None, "no_call"
        try:
            valid, label = validate_calls(calls, read, allow_extra=self.allow_extra_arguments)
        except RowFormatError:  # a tool whose parameters are not a JSON Schema
            return None, "bad_row"
        if self.mode == "all":
            return (1.0 if valid == calls.made else 0.0), label
        return valid / calls.made, label
