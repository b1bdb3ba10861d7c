"""Competitive-programming judging: special checkers and IOI-style subtasks, as rows carry them.

**Checkers.** A row may carry a checker (testlib/CMS style): a program run with three file names for each test
whose program ended cleanly, in one of two orders (:data:`CHECKER_ORDERS`): testlib's ``input output answer``
(the contestant's output before the jury's answer: a Codeforces/Polygon checker's ``registerTestlibCmd``), or
CMS's ``input answer output`` (IOI's checkers; Open-R1 calls its Codeforces ``generated_checker`` and its IOI
``checker/checker.cpp`` so). The reward's ``checker_order`` pins one; else the row's ``checker_order`` column;
else ``cms`` for a checker taken from Open-R1's columns and ``testlib`` for a ``checker`` column. Its verdict:

- stdout's last token a number in [0, 1]: that score (CMS and Open-R1's IOI checkers print it; a
  Codeforces-style checker prints ``1`` or ``0``);
- else its exit status as testlib gives it: 0 is 1.0 (accepted), 1 (wrong answer) and 2 (presentation
  error) are 0.0;
- anything else (testlib's 3, "the checker failed"; another status; a crash, a timeout, a compile error;
  a score outside [0, 1]) is the checker's failure, not the program's: the sample is ``None``
  (``sandbox_error``) with a warning, never a 0.0.

The checker runs in the sandbox as a job of its own, after the program's job has ended: a fresh
supervisor in a sandbox whose ``/tmp`` was emptied, so nothing the program wrote or left running reaches
it, and the expected outputs enter the sandbox only then, never while a program process exists. It has
the program's rlimits and seccomp filter and :data:`CHECKER_LIMITS` (the reward's ``checker_time_limit`` and
``checker_memory_limit_mb``).

Where a row's checker comes from: a ``checker`` column (with ``checker_language``, else ``cpp`` when
the source includes a header, else ``python``); Open-R1's Codeforces ``generated_checker`` (Python);
Open-R1's IOI ``grader_files`` entry ``checker/checker.cpp``.

**Subtasks.** A ``subtasks`` column ``[{"points": 30, "tests": [0, 1]}, ...]`` (indices into the row's
tests), or an Open-R1 IOI row (one subtask per row: ``score`` points over its ``test_names``). A
subtask's points count only when every test of it passes; with a checker's partial scores, the
subtask's score is its lowest test's (as IOI and Open-R1 score it) times its points. The reward is the
points over the total.

Interactive problems (a checker that talks to the program while it runs, IOI's ``Communication`` tasks)
are not supported: such a row is ``no_tests``.

>>> checker_verdict(RawResult("ok", stdout="0.25\\n"))
(0.25, None)
>>> checker_verdict(RawResult("runtime_error", error="exit status 1", extra={"exit": 1}))
(0.0, None)
>>> subtask_value([1.0, 1.0, 0.0], [Subtask(40, (0, 1)), Subtask(60, (1, 2))])
0.4
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from grpo_rewards import params as checks

from .formats import TestFormatError, _json
from .runner import FilesTest, Program, RawResult, Runner
from .sandbox import Limits

#: a checker's default CPU seconds per verdict (the reward's ``checker_time_limit``)
CHECKER_TIME = 10.0
#: a checker's default address space per verdict, in MB (the reward's ``checker_memory_limit_mb``)
CHECKER_MEMORY_MB = 1024
#: a checker's default limits per verdict; its compile has the program's compile limits
CHECKER_LIMITS = Limits(time=CHECKER_TIME, memory=CHECKER_MEMORY_MB << 20, total=300.0)
#: the columns this module reads
JUDGING_COLUMNS = ("checker", "checker_order", "generated_checker", "grader_files", "subtasks", "test_names")
#: the checker's three files (the test's input, the jury's answer, the program's output), named on its command line
#: in the order of its convention: testlib's ``input output answer`` or CMS's ``input answer output``
CHECKER_ORDERS = {"testlib": ("input.txt", "solution_output.txt", "correct_output.txt"),
                  "cms": ("input.txt", "correct_output.txt", "solution_output.txt")}


@dataclass(frozen=True)
class Subtask:
    """``points`` for passing every test of ``tests`` (indices into the row's tests)."""

    points: float
    tests: tuple[int, ...]
    name: str = ""


def _checker_language(source: str, named: Any) -> str:
    if isinstance(named, str) and named.strip():
        language = named.strip().lower()
        language = {"c++": "cpp", "python3": "python", "py": "python"}.get(language, language)
        if language not in ("python", "cpp"):
            raise TestFormatError(f"a checker must be python or cpp, not {named!r}")
        return language
    return "cpp" if "#include" in source else "python"


def row_checker(row: Mapping[str, Any]) -> Program | None:
    """The row's checker (see the module's docstring) as the :class:`~grpo_rewards_code.runner.Program` it is
    (``python`` or ``cpp``; with ``files``, an IOI row's ``checker/*.h`` headers), or None; raises TestFormatError
    for one that cannot be read."""
    source = row.get("checker")
    if source is None:
        source = row.get("generated_checker")  # Open-R1's Codeforces rows: Python, or None
    if source is None and row.get("grader_files") is not None:  # Open-R1's IOI rows
        files = _grader_files(row)
        source = dict(files).get("checker/checker.cpp")
        if source is not None:  # with the headers beside it (testlib.h)
            headers = tuple((n, t) for n, t in files if n.startswith("checker/") and n.endswith(".h"))
            for name, _ in headers:
                _one_file_in(name, "checker")
            return Program(source, "cpp", headers)
    if source is None:
        return None
    if not isinstance(source, str) or not source.strip():
        raise TestFormatError("a checker must be the checker's source text")
    return Program(source, _checker_language(source, row.get("checker_language")))


def row_checker_order(row: Mapping[str, Any]) -> str:
    """The order the row's checker takes its files in (a key of :data:`CHECKER_ORDERS`): the row's
    ``checker_order``, else ``cms`` for a checker from Open-R1's columns (``generated_checker``, an IOI
    ``checker/checker.cpp``: Open-R1 calls them ``checker input answer output``), else ``testlib``; raises
    TestFormatError for another value."""
    named = row.get("checker_order")
    if named is not None:
        if not isinstance(named, str) or named not in CHECKER_ORDERS:
            raise TestFormatError(f"'checker_order' must be one of {', '.join(CHECKER_ORDERS)}, not {named!r}"[:200])
        return named
    if row.get("checker") is None and (row.get("generated_checker") is not None or row.get("grader_files") is not None):
        return "cms"
    return "testlib"


def _grader_files(row: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Open-R1's IOI ``grader_files``: ``[[name, content], ...]`` (or a mapping)."""
    files = _json(row["grader_files"], "'grader_files'")
    if isinstance(files, Mapping):
        files = list(files.items())
    if not isinstance(files, list) or not all(isinstance(f, (list, tuple)) and len(f) == 2 for f in files):
        raise TestFormatError("'grader_files' must be a list of [name, content] pairs")
    return [(str(name), content) for name, content in files if isinstance(content, str)]


def _one_file_in(name: str, folder: str) -> None:
    """Raise TestFormatError unless ``name`` is ``<folder>/<name>``: one plain file name in that folder (a row's
    ``../`` or a hidden name would be written elsewhere)."""
    parts = name.split("/")
    if len(parts) != 2 or parts[0] != folder or not parts[1] or parts[1].startswith("."):
        kind = "grader" if folder == "graders" else folder
        raise TestFormatError(f"a {kind} file must be {folder}/<name>, not {name!r}")


def grader_files(row: Mapping[str, Any], language: str) -> tuple[tuple[str, str], ...]:
    """The files an Open-R1 IOI row compiles the program with (``graders/...``: the problem's header and
    ``grader.cpp`` or ``stub.cpp``), for a C++ program; ``()`` for a row without them. Raises TestFormatError for
    a row whose task is not a batch task (``Communication``: interactive, not supported) or whose graders are not
    C++ when the program is in another language."""
    if row.get("grader_files") is None:
        return ()
    files = [(name, text) for name, text in _grader_files(row) if name.startswith("graders/")]
    for name, _ in files:
        _one_file_in(name, "graders")
    config = dict(files).get("graders/grader_config.json")
    if config is not None:
        task_type = _json(config, "'graders/grader_config.json'")
        task_type = task_type.get("task_type") if isinstance(task_type, Mapping) else None
        if task_type not in (None, "Batch"):
            raise TestFormatError(f"an IOI {task_type} task is interactive: not supported (batch tasks only)")
    if not any(name.endswith((".cpp", ".h")) for name, _ in files):
        return ()
    if language != "cpp":
        raise TestFormatError(f"the row's graders are C++: a {language} program cannot be compiled with them")
    return tuple(files)


def row_subtasks(row: Mapping[str, Any], n_tests: int) -> list[Subtask] | None:
    """The row's subtasks, or None when it has none; raises TestFormatError for subtasks that cannot be read."""
    value = row.get("subtasks")
    if value is None:
        if row.get("test_names") is not None and row.get("score") is not None:  # an Open-R1 IOI row: one subtask
            points = row["score"]
            if not checks.finite(points) or points < 0:
                raise TestFormatError(f"an IOI row's 'score' must be its subtask's points, not {points!r}")
            return [Subtask(float(points), tuple(range(n_tests)), str(row.get("subtask") or ""))]
        return None
    items = _json(value, "'subtasks'")
    if not isinstance(items, list) or not items:
        raise TestFormatError("'subtasks' must be a non-empty list of {'points': ..., 'tests': [...]}")
    out = []
    for k, item in enumerate(items):
        if not isinstance(item, Mapping) or "points" not in item or "tests" not in item:
            raise TestFormatError(f"subtask {k} must be {{'points': ..., 'tests': [...]}}, not {item!r}"[:200])
        points, tests = item["points"], item["tests"]
        if not checks.finite(points) or points < 0:
            raise TestFormatError(f"subtask {k}'s points must be a number of at least 0, not {points!r}")
        if not isinstance(tests, list) or not tests or not all(
                type(i) is int and 0 <= i < n_tests for i in tests):
            raise TestFormatError(f"subtask {k}'s tests must be indices of the row's {n_tests} tests, not {tests!r}"[:200])
        out.append(Subtask(float(points), tuple(tests), str(item.get("name") or "")))
    if sum(s.points for s in out) <= 0:
        raise TestFormatError("the subtasks' points sum to 0")
    return out


def subtask_value(scores: Sequence[float], subtasks: Sequence[Subtask]) -> float:
    """The points of the subtasks (each its lowest test score times its points) over the total points."""
    total = sum(s.points for s in subtasks)
    got = sum(min(scores[i] for i in s.tests) * s.points for s in subtasks)
    return got / total if total > 0 else 0.0


def checker_verdict(raw: RawResult) -> tuple[float | None, str | None]:
    """``(score, None)`` from one checker run, or ``(None, why)`` when the checker itself failed."""
    # a Python checker that raises also exits with 1: its error is then the exception, not "exit status 1"
    chose = raw.extra.get("exit") in (1, 2, 7) and (raw.error or "").startswith("exit status")
    if raw.status == "ok" or (raw.status == "runtime_error" and chose):
        tokens = raw.stdout.split()
        score = None
        if tokens:
            try:
                score = float(tokens[-1])
            except ValueError:
                score = None
        if score is not None and 0.0 <= score <= 1.0:
            return score, None
        if score is not None:
            return None, f"the checker's score {tokens[-1][:40]!r} is outside [0, 1]"
        if raw.status == "ok":
            return 1.0, None
        if raw.extra.get("exit") in (1, 2):
            return 0.0, None
    return None, f"the checker failed: {raw.status} {raw.extra} {(raw.error or '')[:300]}".strip()


def run_checker(runner: Runner, checker: Program, cases: Sequence[tuple[str, str, str]],
                limits: Limits = CHECKER_LIMITS, order: str = "testlib") -> list[tuple[float | None, str | None]]:
    """The checker's verdict on each (input, expected output, program output), run as one sandbox job, its files
    named in ``order`` (a key of :data:`CHECKER_ORDERS`)."""
    if not cases:
        return []
    names = CHECKER_ORDERS[order]
    tests = []
    for given, expected, output in cases:
        text = {"input.txt": given, "correct_output.txt": expected, "solution_output.txt": output}
        tests.append(FilesTest(tuple((name, text[name]) for name in names)))
    return [checker_verdict(raw) for raw in runner.run(checker, tests, limits)]
