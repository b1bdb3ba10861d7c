# mypy: disallow-untyped-defs=False
"""The harness that runs inside the sandbox (standard library only; run as ``python -I -S -c SOURCE``).

One job's supervisor (:func:`_supervise`) is either process 1 of a one-shot sandbox (:func:`main`)
or, in a warm sandbox, a child that the sandbox's process 1, the zygote (:func:`zygote`, run with
the argument ``zygote``), forks per program. It is non-dumpable (the program cannot open
``/proc/<pid>/fd/...`` or read its memory). It reads two length-prefixed JSON frames from fd 0:
frame 1 holds the program, the inputs of stdin/stdout and call tests, and the limits: nothing
secret. It compiles the program once. Frame 2 holds the assert tests, which contain expected
values; it is read only after every process that will run the program has been forked, so no
program process ever has it in memory. Each test runs in its own forked child with rlimits (CPU,
address space, open files, file size, processes) and a seccomp filter that refuses to create
processes (threads are allowed) or to signal, re-limit or re-schedule another process, so no
program can leave a process behind or reach its supervisor; its stdout is captured up to a cap.
One JSON line per test goes to fd 1, then ``{"done": true}``.

Call tests and assert tests exchange values as typed JSON (:func:`encode`): only ``None``, bools,
ints, floats, strings, bytes, complex numbers and lists, tuples, dicts, sets of them, of their
exact types; anything else (an object with a lying ``__eq__``) is a ``runtime_error``.

The harness is kept as several source files (:data:`PARTS`), joined into one program when a sandbox
starts (:func:`source`); this first one holds the typed JSON values, which the host imports too.
"""

import json
import os
import select
from json import encoder as json_encoder
from json import scanner as json_scanner

_type, _len, _isinstance, _write = type, len, isinstance, os.write
_POLLIN = select.POLLIN | select.POLLPRI
MAX_DEPTH = 100

# json.dumps and json.loads go through Python-level wrappers that touch many objects, and each test's
# child (and its supervisor, after each fork) pays a copied page for every object touched: the C encoder
# and scanner, made once, do the same work.
_make_encoder, _make_scanner = getattr(json_encoder, "c_make_encoder", None), getattr(json_scanner, "c_make_scanner", None)
_C_ENCODE = _make_encoder and _make_encoder(None, None, json_encoder.encode_basestring_ascii, None, ": ", ", ",
                                            False, False, True)
_C_SCAN = _make_scanner and _make_scanner(json.JSONDecoder())


def _json_line(message):
    """``(json.dumps(message) + "\n").encode()`` for a message of plain JSON types (no cycles: each is built
    here, and :func:`encode` stops at :data:`MAX_DEPTH`)."""
    if _C_ENCODE is None:
        return (json.dumps(message) + "\n").encode()
    return ("".join(_C_ENCODE(message, 0)) + "\n").encode()


def _json_value(data):
    """``json.loads(data)`` for one line of this harness's own JSON (bytes); raises ValueError."""
    if _C_SCAN is None:
        return json.loads(data)
    text = data.decode()
    try:
        value, end = _C_SCAN(text, 0)
    except StopIteration:
        raise ValueError("not a JSON value") from None
    if end != _len(text):
        raise ValueError("extra data after the JSON value")
    return value


class Unserialisable(Exception):
    pass


def encode(value, depth=0):
    """A JSON-ready form of ``value`` that keeps its type; raises Unserialisable."""
    if depth > MAX_DEPTH:
        raise Unserialisable("nested too deeply")
    t = _type(value)
    if value is None or t is bool or t is int or t is str:
        return value
    if t is float:
        return value if value == value and value not in (float("inf"), float("-inf")) else {"__t": "float", "v": repr(value)}
    if t is list:
        return [encode(v, depth + 1) for v in value]
    if t is tuple:
        return {"__t": "tuple", "v": [encode(v, depth + 1) for v in value]}
    if t is dict:
        return {"__t": "dict", "v": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    if t is set or t is frozenset:
        return {"__t": t.__name__, "v": [encode(v, depth + 1) for v in value]}
    if t is bytes:
        return {"__t": "bytes", "v": value.hex()}
    if t is complex:
        return {"__t": "complex", "v": [encode(value.real), encode(value.imag)]}
    raise Unserialisable(f"a value of type {t.__name__} cannot be compared outside the sandbox")


def decode(data, depth=0):
    """The value :func:`encode` encoded (plain built-in types only)."""
    if depth > MAX_DEPTH:
        raise ValueError("nested too deeply")
    if _isinstance(data, list):
        return [decode(v, depth + 1) for v in data]
    if not _isinstance(data, dict):
        return data
    tag, v = data.get("__t"), data.get("v")
    if tag == "float":
        return float(v)
    if tag == "tuple":
        return tuple(decode(x, depth + 1) for x in v)
    if tag == "dict":
        return {decode(k, depth + 1): decode(x, depth + 1) for k, x in v}
    if tag == "set":
        return {decode(x, depth + 1) for x in v}
    if tag == "frozenset":
        return frozenset(decode(x, depth + 1) for x in v)
    if tag == "bytes":
        return bytes.fromhex(v)
    if tag == "complex":
        return complex(decode(v[0]), decode(v[1]))
    raise ValueError(f"unknown value tag {tag!r}")


#: the harness's source files, in the order :func:`source` joins them (each uses names of the ones before it only)
PARTS = ("harness.py", "harness_child.py", "harness_watch.py", "harness_supervisor.py", "harness_zygote.py")


def source(directory=None) -> str:
    """The harness as the one program ``python -c`` runs: :data:`PARTS` (in ``directory``, by default this one's)
    joined in order, less their imports of each other (``from .harness... import``), which are there for readers
    and type checkers: joined, the names are already defined. Called on the host; the sandbox runs the result."""
    import ast

    directory = directory or os.path.dirname(os.path.abspath(__file__))
    joined = []
    for part in PARTS:
        with open(os.path.join(directory, part), encoding="utf-8") as f:
            text = f.read()
        lines = text.splitlines(keepends=True)
        for node in reversed(ast.parse(text).body):
            if isinstance(node, ast.ImportFrom) and node.level:
                del lines[node.lineno - 1:node.end_lineno]
        joined.append("".join(lines))
    return "\n\n".join(joined)
