"""A JSON text that gives back what it was given: tuples, sets, non-text dict keys and all.

reasoning-gym's scorers read an entry's ``metadata``, and some compare its values by type (ARC
grids are tuples of tuples: after a plain JSON round trip they come back as lists and a correct
grid scores 0.05). A dict column is no better: Arrow fills other rows' missing keys with ``None``
and refuses mixed types. So a row stores the entry as one string column written by :func:`dumps`,
and the scorer reads it back with :func:`loads`.

>>> value = {"grid": ((1, 2), (3, 4)), 7: {"a", "b"}, "plain": [1.5, None, "x"]}
>>> loads(dumps(value)) == value and isinstance(loads(dumps(value))["grid"][0], tuple)
True
"""

from __future__ import annotations

import json
from typing import Any

_TUPLE, _SET, _FROZENSET, _DICT = "__tuple__", "__set__", "__frozenset__", "__dict__"
_MARKS = (_TUPLE, _SET, _FROZENSET, _DICT)


def _encode(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value if type(value) in (bool, int, float, str, type(None)) else _scalar(value)
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, tuple):
        return {_TUPLE: [_encode(v) for v in value]}
    if isinstance(value, (set, frozenset)):
        items = sorted((_encode(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
        return {_FROZENSET if isinstance(value, frozenset) else _SET: items}
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value) and not (len(value) == 1 and next(iter(value)) in _MARKS):
            return {k: _encode(v) for k, v in value.items()}
        return {_DICT: [[_encode(k), _encode(v)] for k, v in value.items()]}
    tolist = getattr(value, "tolist", None)  # a numpy array (a list) or scalar (a Python scalar)
    if callable(tolist):
        return _encode(tolist())
    raise TypeError(f"cannot store a {type(value).__module__}.{type(value).__name__} in a gym row: {value!r:.80}")


def _scalar(value: Any) -> Any:
    """A subclass of a JSON scalar (``numpy.str_``, an ``IntEnum``) as the plain scalar."""
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind(value)
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, dict):
        if len(value) == 1:
            (key, inner), = value.items()
            if key == _TUPLE:
                return tuple(_decode(v) for v in inner)
            if key == _SET:
                return {_decode(v) for v in inner}
            if key == _FROZENSET:
                return frozenset(_decode(v) for v in inner)
            if key == _DICT:
                return {_decode(k): _decode(v) for k, v in inner}
        return {k: _decode(v) for k, v in value.items()}
    return value


def dumps(value: Any) -> str:
    """``value`` as JSON text that :func:`loads` turns back into an equal value of the same types."""
    return json.dumps(_encode(value), ensure_ascii=False, allow_nan=True)


def loads(text: str) -> Any:
    """The value :func:`dumps` wrote."""
    return _decode(json.loads(text))
