# mypy: disallow-untyped-defs=False
"""The harness, part 3 of :data:`grpo_rewards_code.harness.PARTS`: what the supervisor runs each test with:
the job's frames read from fd 0, a test's child forked (:func:`_spawn`), what it leaves killed
(:func:`_kill_others`), its pipes watched against its limits (:func:`_watch`), its outcome read
(:func:`_outcome`).
"""

import os
import select
import signal
import struct
import time

from .harness import _POLLIN, _json_value, _len, _type
from .harness_child import _child_fds, _install_filter, _rlimits, _set_limits


# -- the parent ---------------------------------------------------------------------------------
def _read_exact(n):
    chunks, got = [], 0
    while got < n:
        chunk = os.read(0, min(1 << 20, n - got))
        if not chunk:
            raise EOFError("the job ended early")
        chunks.append(chunk)
        got += _len(chunk)
    return b"".join(chunks)


def _read_frame():
    (size,) = struct.unpack("<Q", _read_exact(8))
    return _json_value(_read_exact(size))


def _spawn(target, fds, limits, cpu, memory, seccomp=True, executes=False):
    """Fork a child that runs ``target`` in its own session on ``fds`` with the limits and (``seccomp``) the
    filter. ``executes``: ``target`` execs a binary, which gets SIGPIPE's default action back (a Python child
    keeps it ignored, as every Python process has it)."""
    rlimits = _rlimits(limits, cpu, memory)
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            _child_fds(fds)
            _set_limits(rlimits)
            if executes:
                signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            if seccomp:
                _install_filter(limits.get("rlimit") == "data")
            target()
        except BaseException:
            pass
        os._exit(120)
    return pid


#: whether this process runs inside the sandbox's own PID namespace (as its process 1, or as a supervisor the
#: zygote forked), where "every other process" means the program's; never in the unsafe mode
_IN_NAMESPACE = False


def _kill_others(keep=()):
    """Kill every process of the sandbox but this one, the zygote (process 1) and ``keep``; reap our children."""
    if _IN_NAMESPACE:
        if keep:
            me = os.getpid()
            for entry in os.listdir("/proc"):
                if entry.isdigit() and int(entry) not in (1, me) and int(entry) not in keep:
                    try:
                        os.kill(int(entry), signal.SIGKILL)
                    except OSError:
                        pass
        else:
            try:
                os.kill(-1, signal.SIGKILL)  # every process we may signal but ourselves and the namespace's init
            except ProcessLookupError:
                return  # there is none, not even a zombie (kill counts them): nothing to reap
            except OSError:
                pass
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG if keep else 0)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _watch(pids, pipes, stdin_data, wall, output_cap):
    """Feed stdin, collect the pipes (name -> fd) until the main pid exits or the wall deadline passes.

    Returns (status of pids[0], rusage, outputs, timed_out, over_output). A plain ``poll`` (no selector
    objects): this runs once per test, between a fork and the next, where every page it touches is copied.
    """
    poller = select.poll()
    names = {}
    out = {}
    for name, fd in pipes.items():
        poller.register(fd, _POLLIN)  # read only when poll says so: a pipe's read then returns at once
        names[fd] = name
        out[name] = bytearray()
    stdin_fd, stdin_view = stdin_data if stdin_data else (None, b"")
    if stdin_fd is not None:
        if stdin_view:
            os.set_blocking(stdin_fd, False)
            poller.register(stdin_fd, select.POLLOUT)
        else:
            os.close(stdin_fd)
            stdin_fd = None
    deadline = time.monotonic() + wall
    status = rusage = None
    timed_out = over = False
    open_reads = _len(pipes)
    try:  # wakes the loop when the process exits (Linux 5.3+); else poll
        exit_fd = os.pidfd_open(pids[0])
        poller.register(exit_fd, _POLLIN)
    except (AttributeError, OSError):
        exit_fd = None
    check = True  # whether the main pid may have exited (at first, and whenever its pidfd is readable)
    while True:
        if check:
            pid, st, ru = os.wait4(pids[0], os.WNOHANG)
            check = exit_fd is None
            if pid:
                status, rusage = st, ru
                if exit_fd is not None:
                    poller.unregister(exit_fd)
                    os.close(exit_fd)
                    exit_fd = None
        if status is not None and not open_reads:
            break
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            timed_out = status is None
            break
        poll = remaining if exit_fd is not None or status is not None else min(remaining, 0.01)
        for fd, _ in poller.poll(poll * 1000 + 1):
            if fd == exit_fd:
                check = True
                continue
            if fd == stdin_fd:
                try:
                    n = os.write(stdin_fd, stdin_view[:65536])
                    stdin_view = stdin_view[n:]
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    stdin_view = b""
                if not stdin_view:
                    poller.unregister(stdin_fd)
                    os.close(stdin_fd)
                    stdin_fd = None
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                poller.unregister(fd)
                open_reads -= 1
                continue
            name = names[fd]
            buffer = out[name]
            buffer += chunk
            if _len(buffer) > output_cap[name]:
                over = True
                del buffer[output_cap[name]:]
        if over:
            break
    for n, pid in enumerate(pids):
        if n or status is None:  # the main pid, once reaped, is not ours to signal any more
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    if status is None:
        _, status, rusage = os.wait4(pids[0], 0)
    if exit_fd is not None:
        os.close(exit_fd)
    for fd in list(pipes.values()) + ([stdin_fd] if stdin_fd is not None else []):
        try:
            os.close(fd)
        except OSError:
            pass
    return status, rusage, out, timed_out, over


#: what a process that ran program code may say on its report channel (fd 3): it is the program's to write
#: (nothing in a process can be hidden from the code it runs), so it is read as untrusted data
PROGRAM_STATUSES = ("ok", "runtime_error", "memory", "output_limit")
_FORGED = {"status": "runtime_error", "error": "the program wrote into the harness's channel"}


def _report_of(data, trusted):
    """The one report a test's process wrote on fd 3, validated; None when it wrote none.

    From a process that ran program code (``trusted`` False) only ``status`` (one of :data:`PROGRAM_STATUSES`),
    ``error`` (text) and, with ``ok``, ``value`` are kept; anything else (more than one line, not JSON, another
    key or status: a claim only the supervisor may make) is the program's ``runtime_error``. An assert test's
    process (``trusted``: it never runs program code) may also say ``passed`` and ``program_error``.
    """
    messages = [line for line in bytes(data).split(b"\n") if line.strip()]
    if not messages:
        return None
    if _len(messages) != 1:
        return dict(_FORGED, error="more than one result: the program wrote into the harness's channel")
    try:
        report = _json_value(messages[0])
    except (ValueError, RecursionError):
        return _FORGED
    allowed = ("status", "error", "value", "passed", "program_error") if trusted else ("status", "error", "value")
    if _type(report) is not dict or any(key not in allowed for key in report) \
            or report.get("status") not in PROGRAM_STATUSES or ("value" in report and report["status"] != "ok") \
            or _type(report.get("error", "")) is not str or _type(report.get("program_error", "")) is not str \
            or _type(report.get("passed", False)) is not bool:
        return _FORGED
    if "error" in report:
        report["error"] = report["error"][:500]
    return report


_FILTER_WORKS: list = []  # whether a fresh child can install the seccomp filter (asked once, when a test exits 121)


def _filter_works():
    """Whether the seccomp filter installs here (a program may exit with 121 itself: only a probe tells)."""
    if not _FILTER_WORKS:
        pid = os.fork()
        if pid == 0:
            try:
                _install_filter()
            finally:
                os._exit(0)
        _FILTER_WORKS.append(os.WEXITSTATUS(os.waitpid(pid, 0)[1]) == 0)
    return _FILTER_WORKS[0]


def _outcome(status, rusage, out, timed_out, over, cpu_limit, memory, trusted=False, markers=()):
    """One test's result from how its process ended; ``markers``: text in its stderr that says it ran out of
    memory (a runtime's own message: the JVM's OutOfMemoryError, V8's heap limit, Rust's failed allocation)."""
    result = {"time": round(rusage.ru_utime + rusage.ru_stime, 4) if rusage else None,
              "rss_kb": rusage.ru_maxrss if rusage else None}
    report = _report_of(out.get("result", b""), trusted)
    stderr = bytes(out.get("stderr", b""))[-2000:].decode("utf-8", "replace")
    if over:
        result.update(status="output_limit")
    elif timed_out or (result["time"] or 0) > cpu_limit:  # RLIMIT_CPU counts whole seconds: the measured
        result.update(status="timeout")                     # CPU time holds a limit such as 0.3 s exactly
    elif os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        result["signal"] = sig
        if sig == signal.SIGXCPU or (sig == signal.SIGKILL and (result["time"] or 0) >= cpu_limit):
            result.update(status="timeout")
        elif sig == signal.SIGXFSZ:
            result.update(status="output_limit")
        elif memory and ("bad_alloc" in stderr or (result["rss_kb"] or 0) * 1024 > 0.8 * memory):
            result.update(status="memory")
        else:
            result.update(status="runtime_error", error=f"killed by signal {sig}")
    else:
        code = os.WEXITSTATUS(status)
        result["exit"] = code
        if report is not None and report["status"] != "ok":
            result.update(status=report["status"], error=report.get("error"))
        elif code == 121 and report is None and not _filter_works():
            result.update(status="sandbox_error", error="the seccomp filter could not be installed")
        elif code != 0:
            result.update(status="runtime_error", error=f"exit status {code}")
        elif report is not None:
            result.update(report)
        else:
            result.update(status="ok")
    if result["status"] == "runtime_error" and markers and any(m in stderr for m in markers):
        result.update(status="memory", error=stderr[-300:])
    if result["status"] == "runtime_error" and stderr and not result.get("error"):
        result["error"] = stderr[-300:]
    result["stdout"] = bytes(out.get("stdout", b"")).decode("utf-8", "replace")
    return result


#: the status of every test that did not run because the row's total time budget ran out
OVER_BUDGET = {"status": "timeout", "error": "the row's total time budget ran out"}


def _budget_left(limits):
    """Seconds left of the row's total budget (``limits["total"]``, counted from the job's start)."""
    return limits["_end"] - time.monotonic()
