"""What the host exchanges with a started harness: the sandbox's process, the job's frames, the results read back.

Used by both ways a job runs: a new sandbox per program (:meth:`grpo_rewards_code.sandbox.Sandbox.run`) and a
warm sandbox's supervisor (:mod:`grpo_rewards_code.warm`). The job is one or two frames (:func:`frame`: an
8-byte little-endian length, then JSON), which the harness reads on its stdin; its results come back as one
JSON line each (:func:`exchange`).

>>> frame({})
b'\\x02\\x00\\x00\\x00\\x00\\x00\\x00\\x00{}'
"""

from __future__ import annotations

import json
import os
import select
import signal
import struct
import subprocess
import threading
import time
from typing import Any


class SandboxProcess(subprocess.Popen[bytes]):
    """A started sandbox: bwrap's process on the host, and (:attr:`inner`) a pidfd of the sandbox's process 1.

    :meth:`end` kills both: the namespace's process 1 dying takes every process of the sandbox with it. bwrap's
    ``--die-with-parent`` alone is not enough as root: its signal cannot reach a process 1 that gave up root.
    A pidfd, not a pid: a number could by then name another process of the host.
    """

    inner: int | None = None

    def end(self) -> None:
        """Kill the whole sandbox (idempotent)."""
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:
            pass
        if self.inner is not None:
            try:
                signal.pidfd_send_signal(self.inner, signal.SIGKILL)
            except OSError:
                pass

    def release(self) -> None:
        """Kill the sandbox, reap bwrap, close the pidfd."""
        self.end()
        self.wait()
        if self.inner is not None:
            os.close(self.inner)
            self.inner = None


def frame(payload: dict[str, Any]) -> bytes:
    """One frame of a job: its length (8 bytes, little-endian), then ``payload`` as JSON."""
    data = json.dumps(payload).encode()
    return struct.pack("<Q", len(data)) + data


#: after the deadline has killed the sandbox, how long its last output may take to arrive
KILL_GRACE_SECONDS = 5.0


def _drain(fd: int, into: bytearray, until: float) -> None:
    """Read ``fd`` into ``into`` (up to 64 KiB kept) until it closes or the clock reaches ``until``."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    while (remaining := until - time.monotonic()) > 0 and poller.poll(remaining * 1000 + 1):
        chunk = os.read(fd, 65536)
        if not chunk:
            return
        if len(into) < 65536:
            into += chunk


def exchange(payload: bytes, job_in: Any, results_out: Any, stderr: Any, n_tests: int, deadline: float,
             on_result: Any, finish: Any, kill: Any, watch: int | None = None) -> tuple[list[dict[str, Any]], str | None]:
    """Send ``payload`` into a running harness and read its results (one JSON line each) until ``done``.

    ``finish(done)`` is called once reading ends (``done``: the harness said so; else the program must be
    stopped); ``kill()`` ends the whole sandbox at ``deadline`` seconds, and every test without a result is
    then a ``timeout``. Closes the three files. ``watch``: bwrap's pid on the host; when it ends (killed from
    outside), ``kill()`` ends the rest of the sandbox.

    One loop in the calling thread polls the results and the harness's stderr, with the deadline as its
    timeout (no timer or reader thread per program). The job is written without blocking; only what the
    pipe cannot take at once (a job larger than it holds) is written from a thread of its own, which
    the kill at the deadline unblocks.
    """
    job_fd = job_in.fileno()

    def feed(rest: memoryview) -> None:
        try:
            while rest:
                rest = rest[os.write(job_fd, rest):]
        except OSError:
            pass
        finally:
            try:
                job_in.close()
            except OSError:
                pass

    view = memoryview(payload)
    os.set_blocking(job_fd, False)
    try:
        view = view[os.write(job_fd, view):]
    except BlockingIOError:
        pass
    except OSError:
        view = view[:0]  # the harness is gone: what it wrote (or why it died) comes below
    os.set_blocking(job_fd, True)
    writer = None
    if view:
        writer = threading.Thread(target=feed, args=(view,), daemon=True)
        writer.start()
    else:
        feed(view)  # all of it is in the pipe (the harness reads it as soon as it starts): close our end
    results_fd, stderr_fd = results_out.fileno(), stderr.fileno()
    poller = select.poll()
    poller.register(results_fd, select.POLLIN)
    poller.register(stderr_fd, select.POLLIN)
    watch_fd = None
    if watch is not None:
        try:
            watch_fd = os.pidfd_open(watch)
            poller.register(watch_fd, select.POLLIN)
        except OSError:
            kill()  # bwrap is already gone
    errors = bytearray()
    pending = bytearray()
    results: list[dict[str, Any]] = []
    seen: set[int] = set()
    fatal: str | None = None
    done = stopped = fired = ended = False
    end = time.monotonic() + deadline

    def take(line: bytes | bytearray) -> bool:
        """Read one result line; True when reading ends."""
        nonlocal fatal, done, stopped
        message = json.loads(line)
        if type(message) is not dict:
            raise ValueError("not an object")
        if "fatal" in message:
            fatal = str(message["fatal"])
            return True
        if message.get("done") is True:
            done = True
            return True
        if "binary" in message:  # a compile's binary, asked for by the job: before any test's result
            if type(message["binary"]) is not str or results:
                raise ValueError("a binary that is not text, or after a test's result")
            if on_result is not None:
                on_result(message)
            return False
        i = message.get("i")
        if type(i) is not int or not 0 <= i < n_tests or i in seen or type(message.get("status")) is not str:
            raise ValueError(f"a result for no test of the job: {line[:200]!r}")
        seen.add(i)
        results.append(message)
        if on_result is not None and on_result(message) is False:
            stopped = True
            return True
        return False

    try:
        while not ended:
            remaining = end - time.monotonic()
            if remaining <= 0:
                if fired:
                    break  # killed, yet its output never closed
                fired = True  # the deadline: kill the whole sandbox, then read what it wrote before it died
                kill()
                end = time.monotonic() + KILL_GRACE_SECONDS
                continue
            for fd, _ in poller.poll(remaining * 1000 + 1):
                if fd == watch_fd:  # bwrap ended: nothing may outlive it (what the sandbox wrote still comes)
                    poller.unregister(watch_fd)
                    kill()
                    continue
                chunk = os.read(fd, 65536)
                if fd == stderr_fd:
                    if not chunk:
                        poller.unregister(stderr_fd)
                    elif len(errors) < 65536:
                        errors += chunk
                    continue
                if not chunk:  # the harness's end of the results closed
                    ended = True
                    if pending.strip():
                        take(pending)
                    break
                if b"\n" not in chunk:  # part of a long line (a compiled binary): kept, not copied again per chunk
                    pending += chunk
                    continue
                lines = (pending + chunk).split(b"\n")
                pending = bytearray(lines.pop())
                for line in lines:
                    if take(line):
                        ended = True
                        break
                if ended:
                    break
        if not done and not stopped and fatal is None and not fired:
            _drain(stderr_fd, errors, time.monotonic() + 1.0)  # why it ended: what it wrote as it died
    except (ValueError, RecursionError) as exc:  # the supervisor's own lines: only a broken harness gets here
        fatal = f"unreadable harness output: {exc}"
    finally:
        if watch_fd is not None:
            os.close(watch_fd)
        finish(done)
        if writer is not None:
            writer.join(timeout=1)  # it closes the job's pipe itself (never closed under a write in progress)
        for stream in (results_out, stderr):
            try:
                stream.close()
            except OSError:
                pass
    if not done and not stopped and fatal is None and not fired:
        fatal = "the sandbox ended early: " + bytes(errors).decode("utf-8", "replace")[-500:].strip()
    elif not done and not stopped and fatal is None:
        for i in (i for i in range(n_tests) if i not in seen):
            results.append({"i": i, "status": "timeout", "error": "the whole run passed its deadline"})
            if on_result is not None:
                on_result(results[-1])
    return results, fatal
