"""Compiled programs kept between runs: a C++ or Rust source is compiled once, not once per run.

A row's checker is the same program for every completion of the row: without this, each completion's verdict
compiled it again (testlib's ``ncmp.cpp`` with ``testlib.h``: about 7 s of g++ each time). The first run of a
source compiles it in the sandbox as always, and the sandbox's supervisor sends the binary back right after the
compiler has exited, before any test of the job runs (so nothing of the program has run yet); later runs of the
same source write that binary into the sandbox instead of compiling. What is compiled is a function of what the
key covers (:func:`key`: the language, the compiler's command line and binary, the source and the files compiled
with it), so a run from the cache does exactly what a compile would have made it do. Only a compile that
succeeded is kept, in memory, by the host process (at most :data:`MAX_BYTES` in all, the least recently used
dropped first, no binary over :data:`MAX_BINARY`).

Runs of one source in several threads at once compile it once: the others wait for that compile (at most its
own time limit) and then use its binary, or compile themselves when it failed. A forked child keeps the binaries
and starts with no compile in progress.

**Shared by the worker processes.** The rewards run in the core's worker pool, and a group's completions are
spread over its workers: kept per process, a row's checker was compiled once by every worker that judged one of
them (up to the group's size). So the binaries are also written to a folder the process and the workers it
starts share (:data:`FOLDER_ENV`, set on import to a new folder under the temporary directory, mode 0700, that
the process which chose it removes when it exits, or, when it was killed, the next process that chooses one;
a folder the user names is used and never removed, unless
another user could write to it: then nothing is shared, with a warning; ``off``: in memory only), at most
:data:`MAX_BYTES` there too, and a compile in progress in one process holds a lock (``flock``) on its key that
the others wait on, as threads wait on each other: one compile for the whole pool. The kernel releases the lock
of a process that dies mid-compile.

>>> cache = CompileCache(max_bytes=10)
>>> cache.claim("k", wait=0.0) is None   # nothing kept yet: this caller compiles
True
>>> cache.done("k", b"\\x7fELF")
>>> cache.claim("k", wait=0.0), cache.hits, cache.misses
(b'\\x7fELF', 1, 1)
"""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import json
import os
import re
import secrets
import shutil
import stat
import tempfile
import threading
import time
import warnings
from collections import OrderedDict
from pathlib import Path
from typing import Any

from grpo_rewards.forking import renew_after_fork

#: the most bytes of binaries one process keeps (and the shared folder holds)
MAX_BYTES = 128 << 20
#: the largest binary kept (a larger one is compiled on every run)
MAX_BINARY = 16 << 20
#: the environment variable naming the folder the processes share (``off``: none)
FOLDER_ENV = "GRPO_REWARDS_CODE_COMPILED"


def key(job: dict[str, Any]) -> str | None:
    """The cache key of a harness job's compile, or None for a job whose compile is not kept (Python, Java,
    JavaScript: nothing, class files, a syntax check). It covers the language, the compile command and its
    environment, the compiler binary (path, size and modification time: an upgraded toolchain compiles again),
    the source and where it goes, and the files compiled with it."""
    if "output" not in job:
        return None
    compiler = job["compile"]["argv"][0]
    try:
        info = os.stat(compiler)
        identity: list[Any] = [compiler, info.st_size, info.st_mtime_ns]
    except OSError:
        return None
    text = json.dumps([job["language"], job["compile"]["argv"], job["compile"]["env"], identity, job["source_path"],
                       job["output"], job["program"], job.get("files", [])], ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class CompileCache:
    """Binaries by :func:`key`, least recently used dropped first; thread-safe. ``hits`` and ``misses`` count
    :meth:`claim`'s answers (a binary read from ``folder`` is a hit). ``folder``: where the processes that share
    it keep their binaries and lock each compile in progress (None: this process's memory only)."""

    def __init__(self, max_bytes: int = MAX_BYTES, max_binary: int = MAX_BINARY, folder: Path | None = None) -> None:
        self.max_bytes, self.max_binary = max_bytes, max_binary
        self.folder = folder
        self.hits = self.misses = 0
        self._kept: OrderedDict[str, bytes] = OrderedDict()
        self._size = 0
        self._compiling: dict[str, threading.Event] = {}
        self._held: dict[str, int] = {}  # the lock files of this process's compiles in progress
        self._warned = False
        self._lock = threading.Lock()
        renew_after_fork(self)

    def _after_fork(self) -> None:
        """In a forked child (``datasets.map(num_proc=...)``): a lock of its own (another thread of the parent
        may have held this one at the fork) and no compile in progress (the parent's threads do not exist
        here: nothing would end them); the parent's lock files closed here, still held by the parent. The
        binaries are kept."""
        self._lock = threading.Lock()
        self._compiling = {}
        for fd in self._held.values():
            os.close(fd)
        self._held = {}

    def _shared(self) -> Path | None:
        """``folder``, made if needed; None when it cannot be used or others could write to it (then nothing is
        shared: a binary there could be anyone's), with a warning the first time. A folder :func:`_shared_folder`
        made is never made again here: gone, its owner has ended (a worker would leave a folder nobody removes)."""
        if self.folder is None:
            return None
        try:
            if not _OWNED.fullmatch(self.folder.name):
                self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            info = os.stat(self.folder, follow_symlinks=False)
        except OSError as exc:
            self._unshared(f"it cannot be made or read ({exc})")
            return None
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
            self._unshared("it is not a folder of this user's that only this user can write to")
            return None
        return self.folder

    def _unshared(self, why: str) -> None:
        if not self._warned:
            self._warned = True
            warnings.warn(f"compiled programs are not shared with the other worker processes through {self.folder} "
                          f"({FOLDER_ENV}): {why}; each process compiles for itself", RuntimeWarning, stacklevel=5)

    def _read(self, folder: Path, name: str) -> bytes | None:
        path = folder / f"{name}.bin"
        try:
            binary = path.read_bytes()
        except OSError:  # none yet
            return None
        try:
            os.utime(path)  # recently used
        except OSError:  # just dropped by another process's trim
            pass
        return binary

    def _claim_shared(self, name: str, wait: float) -> bytes | None:
        """The binary another process kept under ``name``, waiting up to ``wait`` seconds for one compiling it;
        else None with this process holding the key's lock (released by :meth:`done`)."""
        folder = self._shared()
        if folder is None:
            return None
        binary = self._read(folder, name)
        if binary is not None:
            return binary
        try:
            fd = os.open(folder / f"{name}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError:
            return None
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:  # another process compiles it
                binary = self._read(folder, name)
                if binary is not None or time.monotonic() > deadline:
                    os.close(fd)
                    return binary
                time.sleep(0.05)
        binary = self._read(folder, name)  # written just before the lock was free
        if binary is not None:
            os.close(fd)
            return binary
        with self._lock:
            self._held[name] = fd
        return None

    def _done_shared(self, name: str, binary: bytes | None) -> None:
        with self._lock:
            fd = self._held.pop(name, None)
        if fd is None:
            return
        try:
            folder = self._shared()
            if folder is not None and binary is not None and len(binary) <= self.max_binary:
                part = folder / f".{name}.{os.getpid()}.part"
                part.write_bytes(binary)
                part.replace(folder / f"{name}.bin")
                self._trim(folder)
        except OSError:
            pass  # (a full disk: the binary stays in this process's memory)
        finally:
            os.close(fd)  # the lock goes with it

    def _trim(self, folder: Path) -> None:
        """Drop the least recently used binaries of ``folder`` past :attr:`max_bytes` (only those this cache names:
        a folder the user names may hold other files)."""
        found = []
        for path in _binaries(folder):
            try:
                info = path.stat()
            except OSError:
                continue
            found.append((info.st_mtime_ns, info.st_size, path))
        total = sum(size for _, size, _ in found)
        for _, size, path in sorted(found):
            if total <= self.max_bytes:
                break
            path.unlink(missing_ok=True)
            total -= size

    @property
    def size(self) -> int:
        """The bytes of the binaries kept."""
        return self._size

    def claim(self, name: str, wait: float) -> bytes | None:
        """The binary kept under ``name``; else None, and the caller compiles and must call :meth:`done` (with
        the binary, or None when it has none). When another thread is compiling ``name``, waits for it up to
        ``wait`` seconds first."""
        for _ in range(2):
            with self._lock:
                binary = self._kept.get(name)
                if binary is not None:
                    self._kept.move_to_end(name)
                    self.hits += 1
                    return binary
                compiling = self._compiling.get(name)
                if compiling is None:
                    self._compiling[name] = threading.Event()
                    break
            compiling.wait(wait)
        else:
            with self._lock:  # the other compile failed or is still running: compile as well
                self.misses += 1
                self._compiling.setdefault(name, threading.Event())
            return None
        binary = self._claim_shared(name, wait)  # this thread's claim: another process may have it, or compile it
        if binary is not None:
            self.done(name, binary)
            with self._lock:
                self.hits += 1
            return binary
        with self._lock:
            self.misses += 1
        return None

    def done(self, name: str, binary: bytes | None) -> None:
        """The compile claimed by :meth:`claim` ended: keep ``binary`` (None: it made none) and wake the
        threads waiting for it. Called again for the same compile, does nothing."""
        self._done_shared(name, binary)
        with self._lock:
            if binary is not None and len(binary) <= self.max_binary and name not in self._kept:
                self._kept[name] = binary
                self._size += len(binary)
                while self._size > self.max_bytes:
                    _, dropped = self._kept.popitem(last=False)
                    self._size -= len(dropped)
            compiling = self._compiling.pop(name, None)
        if compiling is not None:
            compiling.set()

    def clear(self) -> None:
        """Forget every binary (and the counts), the shared folder's too (the binaries written there, by name)."""
        with self._lock:
            self._kept.clear()
            self._size = self.hits = self.misses = 0
        if self.folder is not None and self.folder.is_dir():
            for path in _binaries(self.folder):
                path.unlink(missing_ok=True)


def _binaries(folder: Path) -> list[Path]:
    """The binaries in ``folder`` written by a cache: ``<key>.bin``, a :func:`key` being 64 hexadecimal digits."""
    return [p for p in folder.glob("*.bin") if len(p.stem) == 64 and all(c in "0123456789abcdef" for c in p.stem)]


#: the name of a folder :func:`_shared_folder` makes (its owner's process id, 12 random hex digits), and of its draft
_OWNED = re.compile(r"grpo-rewards-compiled-\d+-[0-9a-f]{12}")
_DRAFT = ".grpo-rewards-compiled-draft-"
#: a draft younger than this (seconds) is left alone: its process may be between making it and locking its owner
#: file (removed then, that process's folder would never be made); a draft lives microseconds, so an older one
#: was abandoned
DRAFT_AGE = 60.0
#: the file in such a folder on which its owner holds a shared ``flock`` while it (or a forked child) lives
OWNER_FILE = ".owner"
_owner_fds: list[int] = []  # kept open: closing one would drop the owner's lock


def _shared_folder() -> Path | None:
    """The folder of :data:`FOLDER_ENV`; when unset, a new one is made under the temporary directory (the worker
    processes started from here inherit its name) and removed when this process exits. Its owner holds a lock in
    it while it lives; a folder of an owner that was killed (``SIGKILL``, the OOM killer), and so never removed,
    is removed by the next process that makes one (:func:`_remove_abandoned`)."""
    named = os.environ.get(FOLDER_ENV)
    if named == "off":
        return None
    if named:
        return Path(named)
    tmp = Path(tempfile.gettempdir())
    _remove_abandoned(tmp)
    folder = tmp / f"grpo-rewards-compiled-{os.getpid()}-{secrets.token_hex(6)}"
    try:  # made in a draft with the owner's lock already held, so no other process sees it unlocked
        draft = Path(tempfile.mkdtemp(prefix=_DRAFT, dir=tmp))
        fd = os.open(draft / OWNER_FILE, os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
        fcntl.flock(fd, fcntl.LOCK_SH)
        _owner_fds.append(fd)
        draft.rename(folder)
    except OSError:  # an unwritable temporary directory: CompileCache._shared says so when a binary is kept
        pass
    os.environ[FOLDER_ENV] = str(folder)
    owner = os.getpid()

    def remove() -> None:
        if os.getpid() == owner:  # (a forked child runs its parent's exit handlers too)
            shutil.rmtree(folder, ignore_errors=True)

    atexit.register(remove)
    return folder


def _remove_abandoned(tmp: Path) -> None:
    """Remove the folders (and drafts) under ``tmp`` that :func:`_shared_folder` made for a process that no longer
    runs: those of this user whose :data:`OWNER_FILE` this process can lock exclusively (the kernel drops the lock
    of a process however it ends, and no forked child of it holds it any more). A folder without that file (made
    by a worker for a user-named folder, or by an older version) is left alone, and so is a draft younger than
    :data:`DRAFT_AGE`."""
    try:
        names = [n for n in os.listdir(tmp) if _OWNED.fullmatch(n) or n.startswith(_DRAFT)]
    except OSError:
        return
    for name in names:
        folder = tmp / name
        try:
            info = os.stat(folder, follow_symlinks=False)
            if info.st_uid != os.getuid() or (name.startswith(_DRAFT) and time.time() - info.st_mtime < DRAFT_AGE):
                continue
            fd = os.open(folder / OWNER_FILE, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # its owner still runs
            os.close(fd)
            continue
        try:
            shutil.rmtree(folder, ignore_errors=True)
        finally:
            os.close(fd)


#: this process's cache, used by :class:`grpo_rewards_code.runner.LocalRunner`
CACHE = CompileCache(folder=_shared_folder())
