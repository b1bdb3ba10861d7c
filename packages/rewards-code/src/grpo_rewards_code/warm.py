"""Warm sandboxes: one long-lived bwrap per worker thread whose zygote forks a fresh supervisor per program.

A cold run pays for bwrap, an interpreter and the harness's imports per program (about 25 ms of
CPU). A warm sandbox pays them once: its process 1 is the harness's zygote
(:func:`grpo_rewards_code.harness_zygote.zygote`), which holds nothing of any program. Per program the
host hands it three new pipes over a socket; the zygote forks a supervisor onto them without
reading them, and the supervisor runs the job exactly as a cold harness does (frame 1, a fork per
test with the program's rlimits and seccomp filter, frame 2 read only after the program's
processes exist). When the supervisor ends, the zygote kills every other process of the sandbox,
empties ``/tmp`` and ``/dev/shm`` (the only writable places), checks that no System V IPC object
and no socket (a unix socket sent into another's queue outlives every process) is left, and says it is ready; if it cannot make the sandbox clean it exits and the next program
gets a new sandbox. A sandbox that dies, or a job that passes its deadline (the whole sandbox is
then killed), is replaced on the next run; a job that never reached a zygote is retried once.

Each sandbox belongs to the thread that started it (bwrap's ``--die-with-parent`` follows that
thread) and to its process (a forked child starts its own).

>>> from grpo_rewards_code.sandbox import get_sandbox
>>> get_sandbox().run_python("print(6 * 7)", [{"kind": "stdio", "input": ""}])[0]["stdout"]
'42\\n'
"""

from __future__ import annotations

import os
import select
import socket
import subprocess
import threading
from typing import Any, Protocol

from grpo_rewards import keep_across_tasks

from .exchange import SandboxProcess, exchange

#: how long a zygote may take to start, or to clean up after a program, before it is replaced
READY_SECONDS = 30.0
#: after this many warm sandboxes in a row were killed from outside while idle, a process stops starting
#: them (something keeps killing what a sample leaves; the core's worker pool spares a warm sandbox,
#: which :func:`grpo_rewards.keep_across_tasks` names)
IDLE_DEATHS = 2
_local = threading.local()
_idle_deaths = 0


class Startable(Protocol):
    """What a warm sandbox is started from: a :class:`grpo_rewards_code.sandbox.Sandbox` (its bwrap, and how it starts)."""

    binary: str | None

    def start(self, read_only: tuple[str, ...] = (), warm: bool = False, **popen: Any) -> SandboxProcess: ...


class _Gone(OSError):
    """The warm sandbox is not there (it died, or never started); nothing of the job reached it."""


class WarmSandbox:
    """One bwrap whose process 1 is the harness's zygote, and the host's end of its control socket."""

    def __init__(self, sandbox: Startable, read_only: tuple[str, ...]) -> None:
        self.owner = os.getpid()
        host, inside = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.proc = sandbox.start(read_only, warm=True, stdin=inside.fileno(), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE)
        except BaseException:
            host.close()
            raise
        finally:
            inside.close()
        self.control = host
        self.alive = True
        reply = self._reply()
        if reply != b"R":
            self.kill()
            self.proc.wait()
            why = f"the warm sandbox did not start: {reply.decode('utf-8', 'replace')[:300]} " + self._stderr()
            self.close()
            raise OSError(why)
        # In the core's worker, whatever a sample leaves is killed when it ends: this sandbox contains
        # its programs itself (the zygote kills each program's processes), so it may outlive the sample.
        keep_across_tasks(self.proc.pid)

    def _stderr(self) -> str:
        assert self.proc.stderr is not None
        if self.proc.poll() is None:
            return ""
        return self.proc.stderr.read(4000).decode("utf-8", "replace").strip()

    def _reply(self) -> bytes:
        """The zygote's next message (``R``, or ``D reason``); an empty message when it died or stayed silent."""
        ready, _, _ = select.select([self.control], [], [], READY_SECONDS)
        if not ready:
            return b""
        try:
            return self.control.recv(512)
        except OSError:
            return b""

    def kill(self) -> None:
        """Kill the whole sandbox (the deadline, or a zygote that cannot be trusted to be clean)."""
        self.alive = False
        self.proc.end()

    def close(self) -> None:
        if self.owner != os.getpid():  # a forked child's copy: the sandbox is its parent's
            self.control.close()
            return
        self.kill()
        self.proc.release()
        self.control.close()
        if self.proc.stderr is not None:
            self.proc.stderr.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def run(self, payload: bytes, n_tests: int, deadline: float, on_result: Any) -> tuple[list[dict[str, Any]], str | None]:
        job_r, job_w = os.pipe()
        res_r, res_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            socket.send_fds(self.control, [b"r"], [job_r, res_w, err_w])
        except OSError as exc:
            for fd in (job_r, job_w, res_r, res_w, err_r, err_w):
                os.close(fd)
            self.kill()
            raise _Gone(str(exc)) from exc
        finally:
            for fd in (job_r, res_w, err_w):
                try:
                    os.close(fd)
                except OSError:
                    pass

        def finish(done: bool) -> None:
            if not done and self.alive:
                try:
                    self.control.send(b"k")
                except OSError:
                    self.kill()

        results, fatal = exchange(payload, os.fdopen(job_w, "wb"), os.fdopen(res_r, "rb"), os.fdopen(err_r, "rb"),
                                  n_tests, deadline, on_result, finish, self.kill, watch=self.proc.pid)
        if self.alive and self._reply() != b"R":
            self.kill()  # it could not clean up (it exits) or stayed silent: the next program gets a new one
        return results, fatal


def _pool() -> dict[tuple[Any, ...], WarmSandbox]:
    pool: dict[tuple[Any, ...], WarmSandbox] | None = getattr(_local, "pool", None)
    if pool is None or getattr(_local, "pid", None) != os.getpid():
        pool = _local.pool = {}
        _local.pid = os.getpid()
    return pool


def usable() -> bool:
    """Whether warm sandboxes outlive a program in this process (see :data:`IDLE_DEATHS`)."""
    return _idle_deaths < IDLE_DEATHS


def run_warm(sandbox: Startable, payload: bytes, n_tests: int, deadline: float, on_result: Any,
             read_only: tuple[str, ...]) -> tuple[list[dict[str, Any]], str | None]:
    """Run one job in this thread's warm sandbox for (``sandbox``, ``read_only``), starting one when needed."""
    global _idle_deaths
    pool = _pool()
    key = (sandbox.binary, read_only)
    for attempt in (1, 2):
        warm = pool.get(key)
        if warm is None or not warm.alive or warm.proc.poll() is not None:
            if warm is not None:
                _idle_deaths += warm.alive  # alive by our account, yet gone: killed from outside while idle
                warm.close()
            warm = pool[key] = WarmSandbox(sandbox, read_only)
        elif attempt == 1:
            _idle_deaths = 0
        try:
            return warm.run(payload, n_tests, deadline, on_result)
        except _Gone:
            if attempt == 2:
                raise
        finally:
            if not warm.alive:
                pool.pop(key, None)
                warm.close()
    raise AssertionError("unreachable")


def thread_sandboxes() -> list[int]:
    """The host pids of this thread's live warm sandboxes (bwrap's), oldest first."""
    return [w.proc.pid for w in _pool().values() if w.alive and w.proc.poll() is None]


def close_warm() -> None:
    """Close this thread's warm sandboxes (they also end with the thread, or the process)."""
    for warm in _pool().values():
        warm.close()
    _pool().clear()
