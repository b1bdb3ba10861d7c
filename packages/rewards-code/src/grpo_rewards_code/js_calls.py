"""Call tests for JavaScript: a row's JSON call tests (``{"call": [args], "output": value}`` with ``fn_name``; APPS's
and TACO's ``fn_name`` rows) run against a Node.js program.

The program runs as written with a driver appended: the driver reads the call's arguments as one JSON array
on stdin, calls the function named ``fn_name`` (a top-level ``function`` or ``const``/``let``/``var`` binding:
the driver is in the program's scope) and writes ``JSON.stringify`` of the value on a line of its own, last
on stdout (``undefined`` as ``null``). The value is read back here from stdout's last line and compared as
JSON values are (:func:`grpo_rewards_code.compare.values_match`); the expected value never enters the
sandbox. A value JSON cannot carry (a ``BigInt``, a cycle), a promise's value and a program that prints
after the driver are ``runtime_error`` or ``failed``, never a pass.

Why JavaScript alone: its values are JSON's, so one driver serves every function. C++, Java and Rust are
typed: calling a function with JSON arguments needs a driver generated per signature (parsing the
function's parameter types, decoding each argument into them, printing the result type back) — not cheap,
so those languages run stdin/stdout tests only, and Python's assert tests (``assert f(1) == 2``) are
Python's. A row whose call tests cannot run in the row's language is ``no_tests``.

>>> "(add)(...__grpo_args)" in with_driver("function add(a, b) { return a + b; }", "add")
True
>>> read_value(RawResult("ok", stdout="noise\\n[1,2]\\n")).value
[1, 2]
"""

from __future__ import annotations

import json
import re
from typing import Any

from grpo_rewards import jsontext

from .harness import MAX_DEPTH
from .runner import RawResult
from .testcases import CallTest, StdioTest, TestFormatError

#: the call tests' comparison modes whose values are JSON's (a Python-mode test compares Python objects)
JSON_MODES = ("json", "apps")
_NAME = re.compile(r"[A-Za-z_$][\w$]*\Z")
_DRIVER = """
;{{
  const __grpo_args = JSON.parse(require("fs").readFileSync(0, "utf8"));
  const __grpo_value = ({fn})(...__grpo_args);
  process.stdout.write("\\n" + JSON.stringify(__grpo_value === undefined ? null : __grpo_value) + "\\n");
}}"""


def with_driver(code: str, fn: str) -> str:
    """The program with the driver that calls ``fn`` appended; raises TestFormatError for a name that is not a
    JavaScript identifier."""
    if not _NAME.match(fn):
        raise TestFormatError(f"fn_name {fn!r} is not a JavaScript function name"[:200])
    return code + "\n" + _DRIVER.format(fn=fn)


def call_as_stdin(test: CallTest) -> StdioTest:
    """A call test as the driver reads it: its arguments as one JSON array on stdin."""
    return StdioTest(json.dumps(list(test.args)), "")


def _nested_within(value: Any, most: int) -> bool:
    """Whether ``value`` (decoded JSON) nests lists and objects at most ``most`` levels deep (walked without
    recursion)."""
    level: list[Any] = [value]
    for _ in range(most + 1):
        level = [v for item in level if isinstance(item, (list, dict))
                 for v in (item.values() if isinstance(item, dict) else item)]
        if not level:
            return True
    return False


def read_value(raw: RawResult) -> RawResult:
    """``raw`` with the value the driver wrote on stdout's last line (``has_value`` False when there is none, it
    is not JSON, or it nests deeper than :data:`~grpo_rewards_code.harness.MAX_DEPTH`, as a Python call test's
    value may not: the program's line is read here, and ``[[[[...`` a thousand deep would raise
    ``RecursionError`` out of the reward), once: a result already read, or one that did not end cleanly, comes
    back as it is."""
    if raw.status != "ok" or raw.has_value:
        return raw
    lines = raw.stdout.rstrip("\n").rsplit("\n", 1)
    try:
        value = jsontext.loads(lines[-1])
    except ValueError:
        raw.has_value = False
        return raw
    if _nested_within(value, MAX_DEPTH):
        raw.value, raw.has_value = value, True
    else:
        raw.has_value = False
    return raw


def js_call_tests(tests: list[CallTest]) -> str | None:
    """The one function the call tests name when every test is a JSON call test (else None)."""
    names = {t.fn for t in tests}
    if tests and len(names) == 1 and all(t.mode in JSON_MODES for t in tests):
        return names.pop()
    return None
