r"""The tool calls a completion made, read from a trajectory or from text (never evaluated).

A completion is a trajectory (a list of messages, :func:`grpo_rewards.trajectory_messages`) or a
string. Its calls are, in order:

- **structured calls**: the ``tool_calls`` of assistant messages, in OpenAI's form
  (``{"type": "function", "function": {"name": ..., "arguments": "{json}" or {...}}}``) or the bare
  ``{"name", "arguments"}`` form. When any assistant message has structured calls, or the
  trajectory has a ``tool`` message, the trajectory was parsed by the tool loop: text in message
  content is then an answer, never a call (a call written into the final answer was not executed).
- **text calls** (raw completions, one string or unparsed assistant messages), tried in this order
  on the text outside ``<think>`` blocks:
  Hermes/Qwen ``<tool_call>{json}</tool_call>`` blocks (a Python-literal dict, as in Hermes
  function-calling rows, is read with :func:`ast.literal_eval`); Glaive's ``<functioncall> {...}``;
  gpt-oss's harmony messages to a function (``<|start|>assistant to=functions.get_weather<|channel|>commentary
  json<|message|>{"city": "Paris"}<|call|>``);
  a whole text (or one fenced block) that is a JSON call object or a JSON list of them (xLAM's
  answer form); a whole text that is a Python call or a list of calls, ``get_weather(city="Paris")``
  or BFCL's ``[f(a=1), g()]``, read with :mod:`ast` (keywords and literals only: nothing runs).

A call that cannot be read (bad JSON in a ``<tool_call>`` block, arguments that are not an object,
a pythonic call with positional arguments or a non-literal value) counts as one *malformed* call.

>>> read_calls('<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>').calls
(Call(name='get_weather', arguments={'city': 'Paris'}),)
>>> read_calls('[add(a=1, b=2), get_time()]').calls
(Call(name='add', arguments={'a': 1, 'b': 2}), Call(name='get_time', arguments={}))
>>> read_calls("The weather in Paris is sunny.").calls
()
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from grpo_rewards import jsontext, message_text, trajectory_messages

#: Texts longer than this are not read as pythonic or JSON calls (``<tool_call>`` blocks still are).
MAX_WHOLE_TEXT = 200_000
_THINK_BLOCK = re.compile(r"<think>.*?(?:</think>|\Z)", re.S)
_TOOL_CALL = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.S)
#: where a Glaive call ends (else at the end of the text): see :func:`_functioncall_bodies`
_FUNCTIONCALL_END = re.compile(r"<\|endoftext\|>|</functioncall>")
#: where a harmony message's name ends, and where its message ends (else at the end of the text): see :func:`_harmony_calls`
_HARMONY_NAME_END = re.compile(r"[\s<]")
_HARMONY_END = re.compile(r"<\|call\|>|<\|end\|>")
_FENCE = re.compile(r"\A```[\w-]*\n(.*?)\n?```\Z", re.S)
#: a text that starts like a pythonic call: ``name(`` or ``[name(`` (in a list, ToolACE's names with spaces too)
#: (``(?=(...))\1`` matches ``[\w. -]*`` without backtracking, as ``[\w. -]*+`` would on Python 3.11: backtracking
#: into it, ``\s*`` read every run of spaces again from each of its ends, so ``[a`` and 200,000 spaces then ``!``
#: took minutes; a shorter run never matches where the whole one does not, so the matches are the same)
_LOOKS_PYTHONIC = re.compile(r"\A(?:\[\s*[A-Za-z_](?=([\w. -]*))\1|[A-Za-z_][\w.]*)\s*\(")
#: a called name with spaces in a list of calls (ToolACE: ``[Get Top Songs(country="FR")]``)
_SPACED_NAME = re.compile(r"(?<=[\[,])(\s*)([A-Za-z_][\w.-]*(?: +[\w.-]+)+)(\s*\()")
_SPACE = "__space__"


class Call(NamedTuple):
    """One tool call: the tool's name and its arguments (a JSON object)."""

    name: str
    arguments: dict[str, Any]


class ReadCalls(NamedTuple):
    """What a completion called: the calls read, and one reason per call that could not be read."""

    calls: tuple[Call, ...] = ()
    malformed: tuple[str, ...] = ()

    @property
    def made(self) -> int:
        """Calls made, malformed ones included."""
        return len(self.calls) + len(self.malformed)


class CallError(ValueError):
    """A call that cannot be read."""


def strip_think(text: str) -> str:
    """``text`` without its ``<think>`` blocks (an unclosed one runs to the end; text before a lone
    ``</think>``, the reasoning of a template that opens ``<think>`` in the prompt, is dropped too).

    >>> strip_think("<think>call f(x=1)?</think>f(x=2)")
    'f(x=2)'
    """
    if "</think>" in text and "<think>" not in text.split("</think>", 1)[0]:
        text = text.split("</think>", 1)[1]
    return _THINK_BLOCK.sub("", text) if "<think>" in text else text


def _arguments(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if isinstance(value, str):
        try:
            value = jsontext.loads(value) if value.strip() else {}
        except ValueError as exc:
            raise CallError(f"{where}: arguments are not JSON ({exc})") from None
    if not isinstance(value, Mapping):
        raise CallError(f"{where}: arguments are {type(value).__name__}, not an object")
    if not all(isinstance(key, str) for key in value):
        raise CallError(f"{where}: an argument name is not a string")
    return dict(value)


def call_from_object(obj: Any, where: str = "call") -> Call:
    """A :class:`Call` from a JSON object: OpenAI's ``{"type": "function", "function": {...}}``, or
    ``{"name", "arguments"}`` (``parameters`` also read as the arguments); raises :class:`CallError`."""
    if not isinstance(obj, Mapping):
        raise CallError(f"{where}: a call is {type(obj).__name__}, not an object")
    function = obj.get("function")
    if isinstance(function, Mapping):
        obj = function
    name = obj.get("name")
    if not isinstance(name, str) or not name.strip():
        raise CallError(f"{where}: a call without a tool name")
    args = obj.get("arguments", obj.get("parameters"))
    return Call(name.strip(), _arguments(args, where))


def _load_object(body: str) -> Any:
    """A JSON value, or a Python literal (Hermes rows write dicts with single quotes); raises CallError."""
    try:
        return jsontext.loads(body)
    except ValueError:
        pass
    try:
        return ast.literal_eval(body)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        raise CallError(f"not a JSON object: {type(exc).__name__}") from None


#: the constants of a Python literal that are JSON values (their exact types: ``ast`` makes no subclasses)
_JSON_CONSTANTS = frozenset((str, int, float, bool, type(None)))
_BARE_NAMES = {"True": True, "true": True, "False": False, "false": False, "None": None, "null": None}


def _literal(node: ast.AST) -> Any:
    """The value of a literal expression node (constants, lists, tuples, dicts, sets, signed numbers,
    ``True``/``False``/``None`` also as bare names); raises CallError for anything else."""
    kind = type(node)
    if kind is ast.Constant:
        value = node.value  # type: ignore[attr-defined]
        if type(value) in _JSON_CONSTANTS:
            return value
        raise CallError(f"a {type(value).__name__} literal is not a JSON value")
    if kind is ast.List or kind is ast.Tuple or kind is ast.Set:
        return [_literal(item) for item in node.elts]  # type: ignore[attr-defined]
    if kind is ast.Dict:
        keys: list[ast.AST | None] = node.keys  # type: ignore[attr-defined]
        if None in keys:
            raise CallError("a ** inside a dict")
        return {_key(key): _literal(value) for key, value in zip(keys, node.values)}  # type: ignore[arg-type, attr-defined]
    if kind is ast.UnaryOp and isinstance(node.op, (ast.USub, ast.UAdd)):  # type: ignore[attr-defined]
        value = _literal(node.operand)  # type: ignore[attr-defined]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise CallError("a sign before something that is not a number")
        return -value if isinstance(node.op, ast.USub) else value  # type: ignore[attr-defined]
    if kind is ast.Name and node.id in _BARE_NAMES:  # type: ignore[attr-defined]
        return _BARE_NAMES[node.id]  # type: ignore[attr-defined]
    raise CallError(f"the value {ast.unparse(node)[:60]!r} is not a literal")


def _key(node: ast.AST) -> str:
    key = _literal(node)
    if isinstance(key, bool) or not isinstance(key, (str, int, float)):
        raise CallError("a dict key that is not a string or a number")
    return key if isinstance(key, str) else json.dumps(key)


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    raise CallError("the called thing is not a (dotted) name")


def _python_call(node: ast.AST) -> Call:
    if type(node) is not ast.Call:
        raise CallError("an item of the list is not a call")
    func = node.func
    name = func.id if type(func) is ast.Name else _dotted(func)
    if node.args:
        raise CallError(f"{name}: positional arguments (arguments must be named)")
    arguments: dict[str, Any] = {}
    for keyword in node.keywords:
        key = keyword.arg
        if key is None:
            raise CallError(f"{name}: **arguments")
        arguments[key] = _literal(keyword.value)
    return Call(name, arguments)


def python_calls(text: str) -> list[Call]:
    """The calls of a text that is one Python call or a list (or tuple) of calls; raises CallError.

    >>> python_calls("math.factorial(number=5)")
    [Call(name='math.factorial', arguments={'number': 5})]
    """
    text = text.strip()
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        spaced = text.startswith("[") and _SPACED_NAME.search(text)
        if not spaced or _SPACE in text:
            raise CallError(f"not a Python call ({type(exc).__name__})") from None
        named = _SPACED_NAME.sub(lambda m: m.group(1) + m.group(2).replace(" ", _SPACE) + m.group(3), text)
        return [Call(call.name.replace(_SPACE, " "), call.arguments) for call in python_calls(named)]
    body = tree.body
    try:
        if isinstance(body, (ast.List, ast.Tuple)):
            return [_python_call(item) for item in body.elts]
        return [_python_call(body)]
    except RecursionError:
        raise CallError("nested too deeply") from None


def _functioncall_bodies(text: str) -> list[str]:
    """The stripped body of each Glaive ``<functioncall>`` of ``text``: from the tag to the next
    ``<|endoftext|>`` or ``</functioncall>``, or to the end; the next call is looked for after that end.

    The same bodies as ``re.finditer(r"<functioncall>\\s*(.*?)\\s*(?:<\\|endoftext\\|>|</functioncall>|\\Z)",
    text, re.S)`` gives (its group stripped), found with ``str.find`` in linear time: that regex read every
    run of whitespace in a body again from each of its characters (``<functioncall>a``, 20,000 spaces and
    ``x`` took 9 s).

    >>> _functioncall_bodies("<functioncall> {} </functioncall> x <functioncall>[1] <|endoftext|><functioncall>")
    ['{}', '[1]', '']
    """
    bodies = []
    at = text.find("<functioncall>")
    while at >= 0:
        start = at + len("<functioncall>")
        end = _FUNCTIONCALL_END.search(text, start)
        if end is None:
            bodies.append(text[start:].strip())
            break
        bodies.append(text[start:end.start()].strip())
        at = text.find("<functioncall>", end.end())
    return bodies


def _tool_call_bodies(text: str) -> list[str]:
    """The stripped body of each ``<tool_call>`` of ``text`` (to its ``</tool_call>``, or to the end)."""
    return [m.group(1).strip() for m in _TOOL_CALL.finditer(text)]


#: the tags a call may be written in, each with the reader of its bodies
_TAGGED_CALLS = (("<tool_call>", _tool_call_bodies), ("<functioncall>", _functioncall_bodies))


def _harmony_calls(text: str) -> list[tuple[str, str]]:
    r"""``(name, stripped message)`` of each harmony message to a function in ``text``.

    A message to a function opens at ``to=functions.``; its name runs to the next whitespace or ``<``
    and must not be empty; the next ``<|message|>`` after the name must come before any ``<|start|>``
    (else the opening is not a call, and the next opening is tried); the message runs from there to the
    next ``<|call|>`` or ``<|end|>``, or to the end, and the next call is looked for after it. These
    are the matches of ``to=functions\.([^\s<]+)((?:(?!<\|start\|>).)*?)<\|message\|>(.*?)(?:<\|call\|>|<\|end\|>|\Z)``
    (re.S: name, message), found in linear time: each search below only moves forward, and a failed
    opening costs nothing but its name. That regex read on to the next ``<|message|>`` from every opening
    (and, backtracking, from every shorter name): ``<|message|>to=functions.`` then 8,000 letters took 1.2 s,
    and ``to=functions.a`` repeated with no message after it was quadratic too.

    >>> _harmony_calls("to=functions.f <|start|>x to=functions.g json<|message|> {} <|call|>to=functions.h<|message|>1")
    [('g', '{}'), ('h', '1')]
    """
    calls = []
    name_end = message = start = -1  # the next [\s<], <|message|>, <|start|> found so far (len(text): none)
    at = text.find("to=functions.")
    while at >= 0:
        name_start = at + len("to=functions.")
        if name_end < name_start:
            found = _HARMONY_NAME_END.search(text, name_start)
            name_end = found.start() if found else len(text)
        if message < name_end:
            message = text.find("<|message|>", name_end)
            message = len(text) if message < 0 else message
        if start < name_end:
            start = text.find("<|start|>", name_end)
            start = len(text) if start < 0 else start
        if name_end == name_start or message == len(text) or start < message:
            at = text.find("to=functions.", at + 1)
            continue
        end = _HARMONY_END.search(text, message + len("<|message|>"))
        calls.append((text[name_start:name_end], text[message + len("<|message|>"):end.start() if end else None].strip()))
        if end is None:
            break
        at = text.find("to=functions.", end.end())
    return calls


def _json_calls(value: Any) -> list[Any] | None:
    """The call objects of a parsed JSON text, or None when it is not a call (or list of calls)."""
    if isinstance(value, Mapping) and ("name" in value or "function" in value):
        return [value]
    if isinstance(value, list) and value and all(isinstance(v, Mapping) and ("name" in v or "function" in v)
                                                 for v in value):
        return value
    return None


def text_calls(text: str) -> ReadCalls:
    """The calls written in a text (the forms in this module's docstring), outside ``<think>``."""
    text = strip_think(text)
    calls: list[Call] = []
    bad: list[str] = []
    for kind, bodies in _TAGGED_CALLS:
        if kind not in text:
            continue
        for body in bodies(text):
            try:
                calls.append(call_from_object(_load_object(body), kind))
            except CallError as exc:
                bad.append(f"{kind}: {exc}")
        return ReadCalls(tuple(calls), tuple(bad))
    if "to=functions." in text and "<|message|>" in text:
        for name, arguments in _harmony_calls(text):
            try:
                calls.append(call_from_object({"name": name, "arguments": arguments}, "harmony"))
            except CallError as exc:
                bad.append(str(exc))
        if calls or bad:
            return ReadCalls(tuple(calls), tuple(bad))
    whole = text.strip()
    if not whole or len(whole) > MAX_WHOLE_TEXT:
        return ReadCalls()
    fenced = _FENCE.match(whole)
    if fenced:
        whole = fenced.group(1).strip()
    if _LOOKS_PYTHONIC.match(whole):
        try:
            return ReadCalls(tuple(python_calls(whole)))
        except CallError as exc:
            return ReadCalls((), (f"pythonic call: {exc}",))
    if whole[0] in "[{":
        try:
            objects = _json_calls(jsontext.loads(whole))
        except ValueError:
            objects = None
        if objects is not None:
            for obj in objects:
                try:
                    calls.append(call_from_object(obj, "JSON call"))
                except CallError as exc:
                    bad.append(str(exc))
            return ReadCalls(tuple(calls), tuple(bad))
    return ReadCalls()


def _structured(message: Mapping[str, Any]) -> Any:
    calls = message.get("tool_calls")
    return calls if isinstance(calls, (list, tuple)) and calls else None


def read_calls(completion: Any) -> ReadCalls:
    """Every call a completion made (this module's docstring says where calls are read from)."""
    if type(completion) is str:  # the common case: one unparsed assistant message
        return text_calls(completion) if completion else ReadCalls()
    messages = trajectory_messages(completion)
    assistant = [m for m in messages if m.get("role", "assistant") == "assistant"]
    parsed = any(_structured(m) is not None for m in assistant) or any(m.get("role") == "tool" for m in messages)
    calls: list[Call] = []
    bad: list[str] = []
    for message in assistant:
        structured = _structured(message)
        if structured is not None:
            for item in structured:
                try:
                    calls.append(call_from_object(item, "tool_calls"))
                except CallError as exc:
                    bad.append(str(exc))
        elif not parsed:
            text = message_text(message)
            if text:
                found = text_calls(text)
                calls.extend(found.calls)
                bad.extend(found.malformed)
    return ReadCalls(tuple(calls), tuple(bad))
