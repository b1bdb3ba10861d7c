r"""One normaliser for every row format: a row's tools, its gold calls and its prompt.

A row is read by :func:`read_row` into a :class:`ToolRow`, whatever dataset it comes from:

| format | columns | gold |
|---|---|---|
| ``native`` | ``tools`` (OpenAI function format), ``gold_calls`` (a list of ``{"name", "arguments"}``) | the calls, exactly; an argument the gold leaves out may be given with the tool schema's ``default`` |
| ``xlam`` (xLAM / APIGen) | ``query``, ``tools``, ``answers`` (JSON text) | as native |
| ``bfcl`` | ``question``, ``function``, ``ground_truth`` (``[{name: {arg: [accepted values]}}]``, ``""`` = may be left out) | any accepted value; ``[]`` (irrelevance rows): no call |
| ``hermes`` (NousResearch function calling) | ``conversations`` (``from``/``value``), tools in the system turn's ``<tools>`` | the ``<tool_call>`` blocks of a ``gpt`` turn |
| ``toolace`` | ``system`` (a JSON list of tools), ``conversations`` (LLaMA-Factory's ``function_call`` turns read as assistant turns) | an assistant turn's ``[f(a=1)]`` or JSON call |
| ``glaive`` | ``system`` (tools as JSON objects), ``chat`` (``USER:``/``ASSISTANT:`` text) | an ``ASSISTANT:`` turn's ``<functioncall>`` |

In a conversation, the gold is the first assistant turn that calls a tool, and the turns before it
(clarifying questions included) are the prompt; when no turn calls a tool, the first assistant turn
is the gold and a plain answer is expected.

An empty gold (``[]``) means a plain answer was expected; empty text (``""``, a missing cell of a CSV or a
spreadsheet) is not read as one. A row that cannot be read raises
:class:`RowFormatError` naming what is wrong; :func:`check_rows` reports them before training.

>>> row = read_row({"tools": [{"type": "function", "function": {"name": "add", "parameters": {
...     "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer", "default": 0}}}}}],
...     "gold_calls": [{"name": "add", "arguments": {"a": 2}}]})
>>> row.format, row.gold[0].accepted, sorted(row.gold[0].optional)
('native', {'a': (2,), 'b': (0,)}, ['b'])
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from grpo_rewards import NotApplicable, check_each_row

from .arguments import DictPattern
from .calls import Call, CallError, _load_object, call_from_object, text_calls
from .schemas import Tool, ToolFormatError, read_tool, read_tools

FORMATS = ("native", "xlam", "bfcl", "hermes", "toolace", "glaive")
_TOOLS_BLOCK = re.compile(r"<tools>(.*?)</tools>", re.S)
_GLAIVE_TURN = re.compile(r"(USER|ASSISTANT|FUNCTION RESPONSE):", re.S)
#: conversation roles: ShareGPT's, OpenAI's, and LLaMA-Factory's tool roles (``function_call``, ``observation``)
_ROLES = {"human": "user", "user": "user", "gpt": "assistant", "assistant": "assistant", "function_call": "assistant",
          "system": "system",
          "tool": "tool", "function": "tool", "function_response": "tool", "observation": "tool", "ipython": "tool"}


class RowFormatError(ValueError):
    """A row whose tools or gold calls cannot be read."""


class NoToolColumns(RowFormatError, NotApplicable):
    """A row whose tool-call columns are all ``None`` or absent (another task's row in a mixed dataset), or that has
    none of what a reward scores against (its gold calls, its tools): not scored, not a problem of the row."""


@dataclass(frozen=True)
class GoldCall:
    """One expected call: the tool's name, the values accepted for each argument, and the arguments
    that may be left out."""

    name: str
    accepted: dict[str, tuple[Any, ...]]
    optional: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ToolRow:
    """A row read: its format, tools, gold calls (None: the row has none) and prompt messages."""

    format: str
    tools: tuple[Tool, ...] = ()
    gold: tuple[GoldCall, ...] | None = None
    messages: tuple[dict[str, Any], ...] = field(default=())

    def tool(self, name: str) -> Tool | None:
        """The row's tool called ``name`` (BFCL's dotted names also as OpenAI's underscored ones)."""
        for tool in self.tools:
            if tool.name == name or tool.name.replace(".", "_") == name:
                return tool
        return None


def _json(value: Any, what: str) -> Any:
    if isinstance(value, str):
        if not value.strip():  # a missing cell (a CSV's, a spreadsheet's) more often than a row expecting no call
            raise RowFormatError(f"{what} is empty text: write [] for a row whose answer is no call")
        try:
            return _load_object(value)
        except CallError:
            raise RowFormatError(f"{what} is not JSON") from None
    return value


def _list(value: Any, what: str) -> list[Any]:
    value = _json(value, what)
    if not isinstance(value, (list, tuple)):
        raise RowFormatError(f"{what} is a {type(value).__name__}, not a list")
    return list(value)


def gold_from_calls(calls: Sequence[Call], tools: Sequence[Tool] = ()) -> tuple[GoldCall, ...]:
    """Gold calls that accept exactly these calls' arguments; an argument the call leaves out that
    the tool's schema gives a ``default`` may be left out or given with that default."""
    by_name = {tool.name: tool for tool in tools}
    gold = []
    for call in calls:
        accepted = {key: (value,) for key, value in call.arguments.items()}
        optional = set()
        tool = by_name.get(call.name)
        properties = tool.parameters.get("properties") if tool else None
        if isinstance(properties, Mapping):
            for key, spec in properties.items():
                if key not in accepted and isinstance(spec, Mapping) and "default" in spec:
                    accepted[key] = (spec["default"],)
                    optional.add(key)
        gold.append(GoldCall(call.name, accepted, frozenset(optional)))
    return tuple(gold)


def _calls(items: list[Any], what: str) -> list[Call]:
    try:
        return [call_from_object(item, f"{what}[{i}]") for i, item in enumerate(items)]
    except CallError as exc:
        raise RowFormatError(str(exc)) from None


def _is_pattern(value: Any) -> bool:
    return isinstance(value, Mapping) and bool(value) and all(isinstance(v, list) for v in value.values())


def _bfcl_value(value: Any) -> Any:
    """An accepted value of BFCL's ground truth: an object whose values are lists of accepted values is a
    :class:`DictPattern` (as BFCL's dict checker reads it), a list of such objects a list of patterns."""
    if _is_pattern(value):
        return DictPattern({k: tuple(v) for k, v in value.items()}, frozenset(k for k, v in value.items() if "" in v))
    if isinstance(value, list) and value and all(_is_pattern(v) for v in value):
        return [_bfcl_value(v) for v in value]
    return value


def _bfcl_gold(items: list[Any]) -> tuple[GoldCall, ...]:
    gold = []
    for i, item in enumerate(items):
        if not isinstance(item, Mapping) or len(item) != 1:
            raise RowFormatError(f"ground_truth[{i}] is not a one-key object {{name: {{argument: [values]}}}}")
        ((name, params),) = item.items()
        if not isinstance(params, Mapping):
            raise RowFormatError(f"ground_truth[{i}] ({name}): the arguments are not an object")
        accepted: dict[str, tuple[Any, ...]] = {}
        optional = set()
        for key, values in params.items():
            if not isinstance(values, list):
                raise RowFormatError(f"ground_truth[{i}] ({name}): {key!r} is not a list of accepted values")
            accepted[key] = tuple(_bfcl_value(v) for v in values)
            if "" in values:
                optional.add(key)
        gold.append(GoldCall(str(name), accepted, frozenset(optional)))
    return tuple(gold)


def _required(gold: tuple[GoldCall, ...], tools: tuple[Tool, ...]) -> tuple[GoldCall, ...]:
    """BFCL's rules against the function's own schema: an argument it requires must be given (even where the
    ground truth accepts ``""``, and with no acceptable value where the ground truth omits it), and an
    argument it does not declare is never accepted (a gold call that needs one cannot be matched)."""
    by_name = {tool.name: tool for tool in tools}
    out = []
    for call in gold:
        tool = by_name.get(call.name)
        required = tool.parameters.get("required") if tool else None
        properties = tool.parameters.get("properties") if tool else None
        if isinstance(required, list) and isinstance(properties, Mapping):
            accepted = {k: v if k in properties else () for k, v in call.accepted.items()
                        if k in properties or k not in call.optional}
            accepted.update({k: () for k in required if k not in accepted})
            call = GoldCall(call.name, accepted, call.optional.intersection(accepted) - set(required))
        out.append(call)
    return tuple(out)


def _bfcl_messages(question: Any) -> tuple[dict[str, Any], ...]:
    turns = _list(question, "question")
    first = turns[0] if turns and isinstance(turns[0], list) else turns
    return tuple(dict(m) for m in first if isinstance(m, Mapping))


def _conversation(turns: list[Any]) -> list[dict[str, Any]]:
    """The turns as chat messages."""
    messages = []
    for i, turn in enumerate(turns):
        if not isinstance(turn, Mapping):
            raise RowFormatError(f"conversations[{i}] is not an object")
        role = _ROLES.get(str(turn.get("from", turn.get("role", ""))).lower())
        content = turn.get("value", turn.get("content"))
        if role is None or not isinstance(content, str):
            raise RowFormatError(f"conversations[{i}] has no known role (from) or no text (value)")
        messages.append({"role": role, "content": content})
    return messages


def _gold_turn(messages: list[dict[str, Any]], what: str) -> tuple[list[Call], int]:
    """The gold calls and the index of the assistant turn they come from: the first assistant turn that
    calls a tool (the turns before it, clarifying questions included, are the prompt); when none does,
    the first assistant turn, whose plain answer is then expected."""
    first = None
    for i, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        first = i if first is None else first
        calls = _gold_in_text(message["content"], f"{what}, turn {i}")
        if calls:
            return calls, i
    if first is None:
        raise RowFormatError(f"{what}: no assistant turn to take the gold calls from")
    return [], first


def _gold_in_text(text: str, what: str) -> list[Call]:
    found = text_calls(text)
    if found.malformed:
        raise RowFormatError(f"{what}: {found.malformed[0]}")
    return list(found.calls)


def _tools_in_text(text: str) -> tuple[Tool, ...]:
    """Tools written in a system prompt: a ``<tools>`` block, else every top-level JSON object or list."""
    block = next((b for b in _TOOLS_BLOCK.finditer(text) if b.group(1).strip()), None)  # not "<tools></tools> tags"
    if block:
        body = block.group(1).strip()
        try:
            return read_tools(_load_object(body) if body.startswith("[") else [
                _load_object(line) for line in body.splitlines() if line.strip()], "<tools>")
        except (CallError, ToolFormatError) as exc:
            raise RowFormatError(f"the system turn's <tools> cannot be read: {exc}") from None
    decoder = json.JSONDecoder()
    tools: list[Tool] = []
    i = 0
    while i < len(text):
        start = min((p for p in (text.find("{", i), text.find("[", i)) if p >= 0), default=-1)
        if start < 0:
            break
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            i = start + 1
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, Mapping) and ("name" in item or "function" in item):
                try:
                    tools.append(read_tool(item, "system tool"))
                except ToolFormatError as exc:
                    raise RowFormatError(str(exc)) from None
        i = end
    return tuple(tools)


def _native(row: Mapping[str, Any], tools: tuple[Tool, ...]) -> ToolRow:
    calls = _calls(_list(row["gold_calls"], "gold_calls"), "gold_calls")
    prompt = row.get("prompt")
    messages = tuple(prompt) if isinstance(prompt, list) else ()
    return ToolRow("native", tools, gold_from_calls(calls, tools), messages)


def _xlam(row: Mapping[str, Any], tools: tuple[Tool, ...]) -> ToolRow:
    calls = _calls(_list(row["answers"], "answers"), "answers")
    query = row.get("query")
    messages = ({"role": "user", "content": query},) if isinstance(query, str) else ()
    return ToolRow("xlam", tools, gold_from_calls(calls, tools), messages)


def _hermes_or_toolace(row: Mapping[str, Any]) -> ToolRow:
    messages = _conversation(_list(row["conversations"], "conversations"))
    system = row.get("system")
    if isinstance(system, str) and system.strip():
        messages.insert(0, {"role": "system", "content": system})
    kind = "hermes" if any("<tool_call>" in m["content"] or "<tools>" in m["content"] for m in messages) else "toolace"
    tools = read_tools(row["tools"]) if row.get("tools") else ()
    if not tools:
        for message in messages:
            if message["role"] == "system":
                tools = _tools_in_text(message["content"])
                break
    gold, at = _gold_turn(messages, f"conversations ({kind})")
    return ToolRow(kind, tools, gold_from_calls(gold, tools), tuple(messages[:at]))


def _glaive(row: Mapping[str, Any]) -> ToolRow:
    system, chat = row.get("system"), row.get("chat")
    if not isinstance(system, str) or not isinstance(chat, str):
        raise RowFormatError("glaive: 'system' and 'chat' must be text")
    tools = _tools_in_text(system)
    parts = _GLAIVE_TURN.split(chat)
    messages: list[dict[str, Any]] = [{"role": "system", "content": system.strip().removeprefix("SYSTEM:").strip()}]
    roles = {"USER": "user", "ASSISTANT": "assistant", "FUNCTION RESPONSE": "tool"}
    for speaker, said in zip(parts[1::2], parts[2::2]):
        messages.append({"role": roles[speaker], "content": said.replace("<|endoftext|>", "").strip()})
    gold, at = _gold_turn(messages, "chat (glaive)")
    return ToolRow("glaive", tools, gold_from_calls(gold, tools), tuple(messages[:at]))


def row_format(row: Mapping[str, Any]) -> str | None:
    """Which format a row is in (by its columns that hold a value: a mixed dataset's other rows hold ``None``), or None."""
    def has(*columns: str) -> bool:
        return all(row.get(c) is not None for c in columns)

    if has("gold_calls"):
        return "native"
    if has("answers", "tools"):
        return "xlam"
    if has("ground_truth", "function"):
        return "bfcl"
    if has("conversations"):
        return "toolace" if isinstance(row.get("system"), str) and "<tools>" not in row["system"] else "hermes"
    if has("chat", "system"):
        return "glaive"
    return None


def read_row(row: Mapping[str, Any]) -> ToolRow:
    """The row's tools, gold calls and prompt (any format of this module's table); raises RowFormatError."""
    if not isinstance(row, Mapping):
        raise RowFormatError(f"a row is a {type(row).__name__}, not a mapping of columns")
    kind = row_format(row)
    try:
        if kind == "native":
            return _native(row, read_tools(row["tools"]) if row.get("tools") is not None else ())
        if kind == "xlam":
            return _xlam(row, read_tools(row["tools"]))
        if kind == "bfcl":
            tools = read_tools(row["function"], "function")
            gold = _required(_bfcl_gold(_list(row["ground_truth"], "ground_truth")), tools)
            return ToolRow("bfcl", tools, gold, _bfcl_messages(row.get("question", [])))
        if kind in ("hermes", "toolace"):
            return _hermes_or_toolace(row)
        if kind == "glaive":
            return _glaive(row)
        if row.get("tools") is not None:  # tools alone: enough for tools.schema_valid
            return ToolRow("native", read_tools(row["tools"]), None)
    except ToolFormatError as exc:
        raise RowFormatError(str(exc)) from None
    raise NoToolColumns("no tool-call columns: expected gold_calls (native), query/tools/answers (xLAM), "
                         "question/function/ground_truth (BFCL), conversations (Hermes, ToolACE) or system/chat (Glaive)")


def has_no_tools_column(read: ToolRow, row: Mapping[str, Any]) -> bool:
    """Whether a row read without tools has none to give (a native row whose ``tools`` is ``None`` or absent: not
    ``tools.schema_valid``'s to score) rather than tools it failed to find (a conversation's, a bad row)."""
    return read.format == "native" and row.get("tools") is None


def _check_row(row: Mapping[str, Any], need_gold: bool, need_tools: bool) -> None:
    read = read_row(row)
    if need_gold and read.gold is None:
        raise NoToolColumns("no gold calls")
    if need_tools and not read.tools:
        raise (NoToolColumns if has_no_tools_column(read, row) else RowFormatError)("no tools")


def check_rows(rows: Any, *, need_gold: bool = True, need_tools: bool = False, max_problems: int = 5) -> list[str]:
    """A problem line per row that cannot be read (at most ``max_problems``), naming the row."""
    return check_each_row(rows, partial(_check_row, need_gold=need_gold, need_tools=need_tools), RowFormatError,
                          max_problems=max_problems)
