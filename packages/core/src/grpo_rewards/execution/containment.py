"""Every process a task starts ends with it: the supervisor of each worker, and the kill of a process tree.

Linux gives three ways to keep hold of processes that leave their group (``setsid``) and their
parent (a double fork): a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``), a PID namespace and a
cgroup. This module uses the subreaper, the one that needs no privilege and no delegated cgroup:

- each worker is two processes. The pool starts the **supervisor** (this file, run as a script, so
  that it imports nothing of the package); it becomes a subreaper, forks and executes the **worker**
  (a fresh interpreter, :mod:`.worker`), and only waits.
  The worker is a subreaper too. A process a task starts is the worker's descendant; when its parent
  dies it is re-parented to the worker (the nearest subreaper), never to pid 1.
- when a task ends, the worker kills every process still below it (:func:`kill_descendants`; a
  ``waitpid`` with ``WNOHANG`` tells in one system call that there is none, the usual case), so a
  scorer cannot leave a process running into the next sample. The one exception is a helper the
  reward's own code names with :func:`keep_across_tasks` (the code sandbox's warm bwrap, whose
  zygote kills each program's processes itself): it and its subtree outlive the task, and still
  die with the worker.
- on a deadline, a crash of the worker or a shutdown, the worker dies and whatever was below it is
  re-parented to the supervisor, which kills it all and exits. The pool stops a worker by sending
  the supervisor SIGTERM (it SIGKILLs the worker at once); the supervisor gets SIGTERM too when the
  pool's process dies (``PR_SET_PDEATHSIG``).

Where ``prctl`` is missing (not Linux) the worker still leads its own session, and the supervisor
kills that process group and every descendant it can still see: a process that calls ``setsid`` and
double-forks can then escape. :func:`mechanism` says which applies (``grpo-rewards`` uses no PID
namespace or cgroup: neither is available unprivileged everywhere).

>>> import subprocess
>>> child = subprocess.Popen(["sleep", "30"])
>>> child.pid in descendants(os.getpid())
True
>>> child.kill(); child.wait()
-9
"""

from __future__ import annotations

import os
import signal
import sys
import time

#: ``prctl`` options (linux/prctl.h).
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
#: ``waitpid`` flag: wait for every kind of child (linux/wait.h ``__WALL``).
_WALL = 0x40000000
#: What the supervisor's child executes: the worker on the inherited socket ``fd``.
WORKER_CODE = ("from grpo_rewards.execution.worker import _worker_entry; "
               "_worker_entry({fd}, {parent}, subreaper={reaper})")
#: Seconds :func:`kill_descendants` keeps killing (a fork bomb) before it gives up.
KILL_PATIENCE = 5.0


def _prctl(option: int, value: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(option, value, 0, 0, 0)) == 0
    except (OSError, AttributeError):  # pragma: no cover - no libc prctl
        return False


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants; False where Linux cannot."""
    return _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def mechanism() -> str:
    """How this machine's workers hold the processes their tasks start: ``subreaper`` or ``process group``."""
    if not hasattr(mechanism, "known"):
        import subprocess

        probe = subprocess.run([sys.executable, "-c", "import ctypes,sys;"
                                "sys.exit(ctypes.CDLL(None).prctl(36, 1, 0, 0, 0) != 0)"], check=False)
        mechanism.known = "subreaper" if probe.returncode == 0 else "process group"  # type: ignore[attr-defined]
    return str(mechanism.known)  # type: ignore[attr-defined]


def die_with_parent(sig: int = signal.SIGKILL) -> bool:
    """Ask Linux to send this process ``sig`` when the thread that started it exits."""
    return _prctl(_PR_SET_PDEATHSIG, int(sig))


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (every thread's), from ``/proc``; [] when it is gone."""
    found: list[int] = []
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in threads:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                found.extend(int(p) for p in f.read().split())
        except (OSError, ValueError):
            continue
    return found


def descendants(pid: int, spare: frozenset[int] | set[int] = frozenset()) -> list[int]:
    """Every process below ``pid`` that ``/proc`` shows (children first), except the processes in
    ``spare`` and everything below them."""
    seen: list[int] = []
    todo = [pid]
    while todo:
        for child in children(todo.pop()):
            if child not in seen and child not in spare:
                seen.append(child)
                todo.append(child)
    return seen


#: The children of this process a reward keeps across tasks (:func:`keep_across_tasks`), with their
#: start times: a pid the kernel gives again to another process is not kept.
_kept: dict[int, str | None] = {}
#: Whether this process is a pool worker, which kills what each task leaves (set by ``worker.serve``). A pool
#: made inside one (a reward called by a reward run in workers: ``grpo-rewards check``, the contract tests)
#: keeps its own workers across tasks with :func:`keep_across_tasks`, so that their warm state (imports, a
#: scorer's caches) is not started again for every task: each still kills what its own tasks leave.
contains_tasks = False


def _start_time(pid: int) -> str | None:
    """When ``pid`` started (``/proc/<pid>/stat`` field 22), or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError):
        return None


def keep_across_tasks(pid: int) -> None:
    """Let ``pid``, a child of this process, and everything below it outlive the task that started it.

    For a reward whose scorer runs a long-lived helper that contains its own work, such as the code
    sandbox's warm bwrap (its zygote kills each program's processes before the next one): the
    worker then spares it when it kills what a task left (:func:`kill_descendants`). Only the
    reward's own code names it; a kept helper still dies with the worker (a deadline, a crash, the
    pool's shutdown: the supervisor kills everything below). A process that is not a child of this
    one is refused with a ``ValueError``.
    """
    if pid not in children(os.getpid()):
        raise ValueError(f"process {pid} is not a child of this process: only a reward's own helper may be kept")
    _kept[pid] = _start_time(pid)


def _spared() -> set[int]:
    """The kept helpers still running (the others are forgotten, so their pids are never spared again)."""
    if not _kept:
        return set()
    mine = set(children(os.getpid()))
    for pid, started in list(_kept.items()):
        if pid not in mine or _start_time(pid) != started:
            del _kept[pid]
    return set(_kept)


def _reap() -> bool:
    """Collect every dead child; True while a live child remains."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG | _WALL)
        except ChildProcessError:
            return False
        except InterruptedError:  # pragma: no cover - retried by Python already
            continue
        if pid == 0:
            return True


def has_children() -> bool:
    """Whether this process has a live child (dead ones are reaped on the way); one system call when not."""
    return _reap()


def kill_descendants(group: int | None = None) -> list[int]:
    """SIGKILL every process below this one (and the process group ``group``) but the helpers kept by
    :func:`keep_across_tasks`, reap them; the pids killed.

    Repeats until none is left, because a process killed while it forked leaves a child that is
    re-parented here (this process is a subreaper) only once its parent is gone.
    """
    killed: list[int] = []
    me = os.getpid()
    give_up = time.monotonic() + KILL_PATIENCE
    while True:
        if group is not None:
            try:
                os.killpg(group, signal.SIGKILL)
            except OSError:
                group = None  # the group is empty
        spare = _spared()
        pids = descendants(me, spare)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except OSError:
                pass
        live = _reap()  # with a kept helper running there is always a live child: /proc says the rest
        if (not live or spare) and not pids and group is None:
            return killed
        if time.monotonic() > give_up:  # pragma: no cover - a process stuck in the kernel
            return killed
        time.sleep(0.001)


def supervise(fd: int, parent: int) -> None:
    """The supervisor: fork the worker on socket ``fd``, wait for it, then kill what it left; exit with its code."""
    die_with_parent(signal.SIGTERM)
    if os.getppid() != parent:  # the pool's process died before the request was in place
        os._exit(0)
    reaper = become_subreaper()
    worker = 0

    def stop(signum: int, frame: object) -> None:
        if worker:
            try:
                os.kill(worker, signal.SIGKILL)
            except OSError:
                pass

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)  # a closed terminal: clean up rather than die and leave the tree behind
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the pool; the pool stops its workers
    worker = os.fork()
    if worker == 0:
        _exec_worker(fd, reaper)
    os.close(fd)
    code = 1
    while True:
        try:
            pid, status = os.waitpid(-1, _WALL)
        except ChildProcessError:  # pragma: no cover - the worker is gone and was reaped
            break
        if pid == worker:
            code = os.waitstatus_to_exitcode(status)
            break
    kill_descendants(None if reaper else worker)
    os._exit(code if code >= 0 else 128 - code)


def _exec_worker(fd: int, reaper: bool) -> None:
    """In the forked child: lead a session of its own, then become the worker (a fresh interpreter)."""
    try:
        os.setsid()  # the fallback's handle on the task's processes: they share the worker's group
    except OSError:  # pragma: no cover - already a group leader
        pass
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, signal.SIG_DFL)
    try:
        os.execv(sys.executable, [sys.executable, "-c", WORKER_CODE.format(fd=fd, parent=os.getppid(), reaper=reaper)])
    finally:
        os._exit(127)  # exec failed: the pool sees a worker that exited before it was ready


if __name__ == "__main__":
    supervise(int(sys.argv[1]), int(sys.argv[2]))
