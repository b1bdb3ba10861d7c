"""One run at a time in a run folder: an exclusive lock held for the life of the run.

The lock is ``RUN_DIR/.grpo-rewards-lock``, taken with ``flock`` by the main process (rank 0) of a
run: the other ranks of the same ``torchrun``/``accelerate launch`` run write nothing of their own
and share it. It holds the holder's pid, host and start time, so a second run is refused with them.
The kernel releases a ``flock`` when its process dies, however it dies: a lock left by a dead process
is taken over at once (the stale file is rewritten), with no pid guessing. The file is removed when
the run ends; a taker checks that the file it locked is still the one at the path (a holder may
have removed it in between), so two runs never hold two different files.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> with RunLock(folder) as lock:
...     holder(folder)["pid"] == os.getpid()
True
>>> (folder / LOCK).exists()
False
"""

from __future__ import annotations

import errno
import json
import os
import socket
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from ..errors import RunDirError

LOCK = ".grpo-rewards-lock"  # the same name as rundir.LOCK (rundir counts it as a run's file)


def check_free(run_dir: Path) -> None:
    """Raise :class:`RunDirError` naming the holder when another run holds ``run_dir``'s lock (changes nothing)."""
    import fcntl

    try:
        fd = os.open(run_dir / LOCK, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return  # no lock file: free
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        _refuse(run_dir)
    finally:
        os.close(fd)


def _refuse(run_dir: Path) -> None:
    info = holder(run_dir) or {}
    who = (f"pid {info.get('pid', '?')} on {info.get('host', '?')}, started {info.get('started', '?')}"
           if info else "a process that has not written its name yet")
    raise RunDirError(f"output dir {run_dir} is in use by another run ({who}); nothing was changed. "
                      "Wait for it to finish, or choose another --output-dir")


def holder(run_dir: Path) -> dict[str, Any] | None:
    """What the lock file says about its holder (pid, host, started), or None when there is none."""
    try:
        data = json.loads((run_dir / LOCK).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


class RunLock:
    """``with RunLock(run_dir):`` holds the run folder's lock, or raises :class:`RunDirError` naming the holder.

    ``created``: whether the folder was made for the lock (it is removed again when it is left empty).
    """

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)
        self.fd: int | None = None
        self.created = False
        self.recovered: dict[str, Any] | None = None  # what a stale lock of a dead process said

    def acquire(self) -> RunLock:
        """Take the lock and write who holds it; a lock that cannot be written (a full disk, a file size
        limit, no permission) is a :class:`RunDirError` in one line, and nothing of it is left behind."""
        try:
            return self._acquire()
        except OSError as exc:
            raise RunDirError(f"{self.run_dir}: cannot write the run's lock file {LOCK}: "
                              f"{exc.strerror or exc}") from None

    def _acquire(self) -> RunLock:
        import fcntl

        if not self.run_dir.exists():
            self.run_dir.mkdir(parents=True)
            self.created = True
        path = self.run_dir / LOCK
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                _refuse(self.run_dir)
            try:
                same = os.fstat(fd).st_ino == os.stat(path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)  # the holder removed the file we locked as it left: lock the new one
        self.recovered = holder(self.run_dir)
        record = {"pid": os.getpid(), "host": socket.gethostname(),
                  "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        data = (json.dumps(record) + "\n").encode()
        try:
            os.ftruncate(fd, 0)
            if os.pwrite(fd, data, 0) != len(data):  # a partial write: the disk or a size limit ran out
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        except OSError:
            self.fd = fd
            self.release()  # the lock file is ours: removed, not left half-written (and a folder made for it)
            raise
        self.fd = fd
        return self

    def release(self) -> None:
        if self.fd is None:
            return
        path = self.run_dir / LOCK
        try:
            if os.fstat(self.fd).st_ino == os.stat(path).st_ino:
                path.unlink()
        except OSError:
            pass
        os.close(self.fd)  # unlocks
        self.fd = None
        if self.created:
            try:
                self.run_dir.rmdir()  # only when the run left nothing in the folder it made
            except OSError:
                pass

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.release()
