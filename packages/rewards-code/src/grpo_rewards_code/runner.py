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

import binascii
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from . import compile_cache
from .sandbox import Limits, Sandbox, get_sandbox
from .testcases import AssertTest, CallTest, StdioTest, Test

#: statuses a raw result can have
STATUSES = ("ok", "compile_error", "runtime_error", "timeout", "memory", "output_limit", "sandbox_error", "skipped")


@dataclass(frozen=True)
class Program:
    """Source code and its language (a name of :data:`grpo_rewards_code.languages.LANGUAGES`)."""

    source: str
    language: str = "python"
    #: files compiled with the program (``(path under /tmp, text)``: an IOI problem's graders, a checker's headers),
    #: C++ only
    files: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class FilesTest:
    """Run the program with ``files`` (``(name, text)`` pairs) written in the sandbox and named, in order, on its
    command line; stdin empty. How a checker judges one test (:mod:`grpo_rewards_code.judging`)."""

    __test__ = False
    files: tuple[tuple[str, str], ...]


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

    def run(self, program: Program, tests: Sequence[Test | FilesTest], limits: Limits,
            stop: Callable[[int, RawResult], bool] | None = None) -> list[RawResult]: ...


def _public(test: Test | FilesTest) -> dict[str, Any]:
    from .harness import encode  # the harness module loads libc: imported when a program runs, not by `list`

    if isinstance(test, StdioTest):
        return {"kind": "stdio", "input": test.input}
    if isinstance(test, CallTest):
        return {"kind": "call", "fn": test.fn, "args": encode(list(test.args))}
    if isinstance(test, FilesTest):
        for name, _ in test.files:
            if not name or "/" in name or name in (".", ".."):
                raise ValueError(f"a files test's file must be a plain file name, not {name!r}")
        return {"kind": "files", "files": [list(pair) for pair in test.files]}
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

    def run(self, program: Program, tests: Sequence[Test | FilesTest], limits: Limits,
            stop: Callable[[int, RawResult], bool] | None = None) -> list[RawResult]:
        """Raw results in test order; after ``stop(i, result)`` returns True the rest are ``skipped``.

        A sandbox that fails (it cannot start, or its harness dies) gives ``sandbox_error`` for every
        test that has no result.
        """
        from .languages import LANGUAGES, job_parts, missing

        language = LANGUAGES.get(program.language)
        if language is None:
            raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, not {program.language!r}")
        if not language.calls and any(isinstance(t, (CallTest, AssertTest)) for t in tests):
            raise ValueError(f"{program.language} programs run stdin/stdout tests only")
        problem = missing(program.language)
        if problem is not None:
            return [RawResult("sandbox_error", error=problem) for _ in tests]
        job: dict[str, Any] = {"language": program.language, "program": program.source,
                               "tests": [_public(t) for t in tests], "limits": limits.job()}
        if program.language != "python":
            parts = job_parts(program.language, program.source, limits.memory, limits.compile_time,
                              limits.compile_memory, program.files)
            job["limits"].update(memory=parts.pop("run_memory"), rlimit=parts.pop("rlimit"),
                                 processes=parts.pop("processes"))
            job.update(parts)
        secret = {"tests": {str(i): {"source": t.source, "setup": t.setup, "proxies": list(t.proxies)}
                            for i, t in enumerate(tests) if isinstance(t, AssertTest)}}
        deadline = limits.deadline(len(tests), compiled=program.language != "python")
        results: dict[int, RawResult] = {}
        kept = compile_cache.key(job)
        if kept is not None:
            binary = compile_cache.CACHE.claim(kept, wait=limits.compile_time * 2 + 2)
            if binary is not None:  # compiled by an earlier run: the harness writes it instead of compiling
                job["binary"] = binascii.b2a_base64(binary, newline=False).decode("ascii")
                kept = None
            else:  # this run compiles: the harness sends the binary back before any test runs
                job["send_binary"] = compile_cache.CACHE.max_binary

        def on_result(message: dict[str, Any]) -> bool:
            if "binary" in message:  # the compile's binary (only ever sent when asked for): kept for later runs
                if kept is not None:
                    compile_cache.CACHE.done(kept, binascii.a2b_base64(message["binary"]))
                return True
            raw = _raw(message)
            results[int(message["i"])] = raw
            return not (stop is not None and stop(int(message["i"]), raw))

        try:
            _, fatal = self.sandbox.run(job, secret, deadline=deadline, on_result=on_result)
        except Exception as exc:  # the sandbox could not start at all
            fatal = f"{type(exc).__name__}: {exc}"
        finally:
            if kept is not None:  # no binary came (a compile error, a sandbox failure): waiting threads compile
                compile_cache.CACHE.done(kept, None)
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
