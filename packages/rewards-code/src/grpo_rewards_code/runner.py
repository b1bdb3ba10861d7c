"""The runner interface: a program, its tests and limits in; raw per-test results out.

Comparison and scoring (:mod:`grpo_rewards_code.scoring`) see only :class:`RawResult`; a backend is
anything with ``name``, ``description`` and ``run(program, tests, limits, stop=None)``. This package
ships :class:`LocalRunner` (the local sandbox, :mod:`grpo_rewards_code.sandbox`).

>>> from grpo_rewards_code.formats import StdioTest
>>> runner = LocalRunner()
>>> [r.status for r in runner.run(Program("print(input()[::-1])"), [StdioTest("abc\\n", "cba")], Limits())]
['ok']
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .formats import AssertTest, CallTest, StdioTest, Test
from .sandbox import Limits, Sandbox, get_sandbox

#: statuses a raw result can have
STATUSES = ("ok", "compile_error", "runtime_error", "timeout", "memory", "output_limit", "sandbox_error", "skipped")
#: the compiler command of ``language: cpp``
CPP_COMPILER = ("/usr/bin/g++", "-O2", "-std=c++17", "-pipe")


@dataclass(frozen=True)
class Program:
    """Source code and its language (``python`` or ``cpp``)."""

    source: str
    language: str = "python"


@dataclass
class RawResult:
    """What one test did: ``status`` (:data:`STATUSES`), the captured ``stdout``, a call's returned
    ``value`` (decoded plain data), an assert test's ``passed``, CPU ``seconds``, and an ``error`` text."""

    status: str
    stdout: str = ""
    value: Any = None
    has_value: bool = False
    passed: bool | None = None
    seconds: float | None = None
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Runner(Protocol):
    name: str

    @property
    def description(self) -> str: ...

    def run(self, program: Program, tests: Sequence[Test], limits: Limits,
            stop: Callable[[int, RawResult], bool] | None = None) -> list[RawResult]: ...


def _public(test: Test) -> dict[str, Any]:
    from .harness import encode  # the harness module loads libc: imported when a program runs, not by `list`

    if isinstance(test, StdioTest):
        return {"kind": "stdio", "input": test.input}
    if isinstance(test, CallTest):
        return {"kind": "call", "fn": test.fn, "args": encode(list(test.args))}
    return {"kind": "assert"}


def _raw(message: dict[str, Any]) -> RawResult:
    """One result line of the harness as a :class:`RawResult`; a field of the wrong type, or a value that does
    not decode, is the program's ``runtime_error`` (never an exception)."""
    from .harness import decode

    status = message.get("status")
    status = status if status in STATUSES and status != "skipped" else "runtime_error"
    value, has_value = None, "value" in message
    if has_value:
        try:
            value = decode(message["value"])
        except Exception:  # a malformed value: whatever it is, the program's failure
            status, has_value = "runtime_error", False
    stdout, error, seconds = message.get("stdout", ""), message.get("error"), message.get("time")
    passed = message.get("passed")
    return RawResult(status=status, stdout=stdout if type(stdout) is str else "", value=value, has_value=has_value,
                     passed=passed if type(passed) is bool else None,
                     seconds=float(seconds) if isinstance(seconds, (int, float)) else None,
                     error=error if type(error) is str or error is None else str(error)[:500],
                     extra={k: message[k] for k in ("exit", "signal", "rss_kb") if type(message.get(k)) is int})


class LocalRunner:
    """Runs a program's tests in the local sandbox: one supervisor per program (in a warm sandbox, else in a
    sandbox of its own), a fork per test."""

    name = "local"

    def __init__(self, sandbox: Sandbox | None = None) -> None:
        self._sandbox = sandbox

    @property
    def sandbox(self) -> Sandbox:
        if self._sandbox is None:
            self._sandbox = get_sandbox()
        return self._sandbox

    @property
    def description(self) -> str:
        return self.sandbox.description

    def run(self, program: Program, tests: Sequence[Test], limits: Limits,
            stop: Callable[[int, RawResult], bool] | None = None) -> list[RawResult]:
        """Raw results in test order; after ``stop(i, result)`` returns True the rest are ``skipped``.

        A sandbox that fails (it cannot start, or its harness dies) gives ``sandbox_error`` for every
        test that has no result.
        """
        if program.language not in ("python", "cpp"):
            raise ValueError(f"language must be python or cpp, not {program.language!r}")
        if program.language == "cpp" and any(isinstance(t, (CallTest, AssertTest)) for t in tests):
            raise ValueError("C++ programs run stdin/stdout tests only")
        if program.language == "cpp" and not os.access(CPP_COMPILER[0], os.X_OK):
            missing = f"no C++ compiler at {CPP_COMPILER[0]}: install g++ (e.g. apt-get install g++)"
            return [RawResult("sandbox_error", error=missing) for _ in tests]
        job: dict[str, Any] = {"language": program.language, "program": program.source,
                               "tests": [_public(t) for t in tests], "limits": limits.job()}
        if program.language == "cpp":
            job.update(compiler=CPP_COMPILER[0], compile_flags=list(CPP_COMPILER[1:]),
                       compile_limits={"time": limits.compile_time, "memory": limits.compile_memory})
        secret = {"tests": {str(i): {"source": t.source, "setup": t.setup, "proxies": list(t.proxies)}
                            for i, t in enumerate(tests) if isinstance(t, AssertTest)}}
        deadline = limits.deadline(len(tests), compiled=program.language == "cpp")
        results: dict[int, RawResult] = {}

        def on_result(message: dict[str, Any]) -> bool:
            raw = _raw(message)
            results[int(message["i"])] = raw
            return not (stop is not None and stop(int(message["i"]), raw))

        try:
            _, fatal = self.sandbox.run(job, secret, deadline=deadline, on_result=on_result)
        except Exception as exc:  # the sandbox could not start at all
            fatal = f"{type(exc).__name__}: {exc}"
        stopped = stop is not None and any(stop(i, r) for i, r in results.items())
        out = []
        for i in range(len(tests)):
            if i in results:
                out.append(results[i])
            elif stopped:
                out.append(RawResult("skipped"))
            else:
                out.append(RawResult("sandbox_error", error=fatal or "no result"))
        return out
