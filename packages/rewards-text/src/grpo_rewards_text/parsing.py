r"""Finding and parsing a reply's structured data (JSON, YAML or TOML), with bounded depth and size.

``source="auto"`` reads the last fenced block (```` ```json … ``` ````, or a block with no
language or the format's own) when the reply has one, else the whole reply; ``"fenced"`` only a
fenced block; ``"whole"`` only the whole reply. Text around the data (``Here it is: {...}``) is not
cut away: a reply padded with junk is unparsable.

Data nested deeper than :data:`MAX_DEPTH` brackets is refused before any parser runs (a linear
scan over brackets and quotes). Every parsed value is copied into plain JSON values (dict with string keys, list, str, int, float,
bool, None) by an iterative walk that stops past :data:`MAX_DEPTH` levels or :data:`MAX_NODES`
values, so a recursion bomb (``[[[[…`` a million deep) or a YAML alias bomb (nine aliases of nine
aliases …) is refused in linear time, never expanded. YAML and TOML dates become ISO strings;
JSON's ``NaN``/``Infinity`` (not JSON) and non-string object keys are refused.

>>> parse_reply('Sure:\n```json\n{"a": [1, 2]}\n```', "json", "auto")
{'a': [1, 2]}
>>> parse_reply("[" * 100_000, "json", "whole")
Traceback (most recent call last):
...
grpo_rewards_text.parsing.Unparsable: nested deeper than 64 levels
"""

from __future__ import annotations

import datetime
import importlib
import json
import re
from typing import Any

FORMATS = ("json", "yaml", "toml")
SOURCES = ("auto", "fenced", "whole")
#: The deepest nesting accepted, and the most values (containers and scalars) one reply may hold.
MAX_DEPTH = 64
MAX_NODES = 200_000
#: A fenced block's language: after the opening ```, optional blanks, then this (the rest of the line is ignored).
_LANG = re.compile(r"[ \t]*([A-Za-z0-9_+.-]*)")
_LANGS = {"json": ("json", "jsonc", "json5", ""), "yaml": ("yaml", "yml", ""), "toml": ("toml", "")}


class NoData(Exception):
    """The reply holds no data to parse (an empty reply, or no fenced block where one is required)."""


class Unparsable(Exception):
    """The reply's data does not parse, or is too deep or too large."""


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    r"""Each fenced block of ``text``, in order: ``(language, body)``.

    A block opens at ```` ``` ````, its language is what :data:`_LANG` reads after it, the rest of
    that line is ignored, and its body runs from the next line to the next ```` ``` ```` (the same
    blocks as the regex ```` ```[ \t]*([A-Za-z0-9_+.-]*)[^\n]*\n(.*?)``` ```` with DOTALL, read by
    ``finditer``). Found with ``str.find``, in linear time: that regex retried every ```` ``` ```` of
    a line with no newline after it, or of an opening with no closing after it, each time reading to
    the end (```` ``` ```` repeated over the 200,000 characters text.json reads took about a minute).
    An opening that fails fails for every later one too (they share its newline, or lie where no
    closing follows), so the scan stops there.

    >>> fenced_blocks("a ```json x\n{}\n``` b ```\n1```")
    [('json', '{}\n'), ('', '1')]
    >>> fenced_blocks("```" * 5), fenced_blocks("```\nopen")
    ([], [])
    """
    blocks = []
    at = text.find("```")
    while at >= 0:
        newline = text.find("\n", at + 3)
        if newline < 0:
            break
        close = text.find("```", newline + 1)
        if close < 0:
            break
        language = _LANG.match(text, at + 3, newline)
        assert language is not None  # every part of _LANG may be empty
        blocks.append((language.group(1), text[newline + 1:close]))
        at = text.find("```", close + 3)
    return blocks


def find_data(text: str, fmt: str, source: str) -> str:
    """The text of the reply's data (see the module); raises :class:`NoData`."""
    if source != "whole" and "```" in text:
        blocks = [body for language, body in fenced_blocks(text) if language.lower() in _LANGS[fmt]]
        if blocks:
            return blocks[-1].strip()
    if source == "fenced":
        raise NoData(f"no fenced ```{fmt} block")
    data = text.strip()
    if not data:
        raise NoData("the reply is empty")
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _load(data: str, fmt: str) -> Any:
    if fmt == "json":
        return json.loads(data, parse_constant=_no_constant)
    if fmt == "yaml":
        import yaml

        return yaml.safe_load(data)
    try:
        toml = importlib.import_module("tomllib")
    except ImportError:  # Python 3.10: the same parser, as the tomli package
        toml = importlib.import_module("tomli")
    return toml.loads(data)


_OPEN = frozenset("[{")
_CLOSE = frozenset("]}")
_BRACKETS = re.compile(r"[\[\]{}\"']")


def bracket_depth(data: str, limit: int = MAX_DEPTH) -> int:
    """The deepest nesting of ``[``/``{`` outside quoted strings, counted up to ``limit + 1`` (a linear scan
    over the brackets and quotes only: the parsers, PyYAML's most of all, are slow to refuse a bomb)."""
    depth = deepest = 0
    quote = ""
    for match in _BRACKETS.finditer(data):
        ch = match.group()
        if quote:
            if ch == quote:
                start = match.start()
                backslashes = len(data[max(0, start - 64):start]) - len(data[max(0, start - 64):start].rstrip("\\"))
                if quote == "'" or backslashes % 2 == 0:
                    quote = ""
            continue
        if ch in "\"'":
            quote = ch
        elif ch in _OPEN:
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest
        elif ch in _CLOSE:
            depth = max(0, depth - 1)
    return deepest


def parse_data(data: str, fmt: str) -> Any:
    """``data`` parsed as ``fmt`` and copied into plain JSON values; raises :class:`Unparsable`."""
    if bracket_depth(data) > MAX_DEPTH:
        raise Unparsable(f"nested deeper than {MAX_DEPTH} levels")
    try:
        value = _load(data, fmt)
    except RecursionError:
        raise Unparsable("nested deeper than the recursion limit") from None
    except Exception as exc:  # json.JSONDecodeError, yaml.YAMLError, tomllib.TOMLDecodeError, ValueError
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise Unparsable(f"{type(exc).__name__}: {message[:200]}") from None
    return plain(value)


def parse_reply(text: str, fmt: str, source: str) -> Any:
    """The reply's data, parsed (:func:`find_data` then :func:`parse_data`)."""
    return parse_data(find_data(text, fmt, source), fmt)


def _scalar(value: Any) -> Any:
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise Unparsable(f"{value!r} is not a JSON number")
        return value
    if isinstance(value, (datetime.date, datetime.time)):  # datetime is a date
        return value.isoformat()
    raise Unparsable(f"a {type(value).__name__} value is not JSON")


def plain(value: Any, max_depth: int = MAX_DEPTH, max_nodes: int = MAX_NODES) -> Any:
    """A copy of ``value`` made of JSON values only, built without recursion (see the module)."""
    if not isinstance(value, (dict, list, tuple)):
        return _scalar(value)
    root: Any = {} if isinstance(value, dict) else []
    stack = [(value, root, 1)]
    nodes = 1
    while stack:
        source, target, depth = stack.pop()
        if depth > max_depth:
            raise Unparsable(f"nested deeper than {max_depth} levels")
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            nodes += 1
            if nodes > max_nodes:
                raise Unparsable(f"more than {max_nodes} values (an alias bomb, or a huge reply)")
            if isinstance(source, dict) and not isinstance(key, str):
                raise Unparsable(f"the object key {key!r} is not a string")
            if isinstance(item, (dict, list, tuple)):
                child: Any = {} if isinstance(item, dict) else []
                stack.append((item, child, depth + 1))
            else:
                child = _scalar(item)
            if isinstance(target, dict):
                target[key] = child
            else:
                target.append(child)
    return root
