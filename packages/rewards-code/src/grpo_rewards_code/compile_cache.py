"""Compiled programs kept between runs: a C++ or Rust source is compiled once per process, not once per run.

A row's checker is the same program for every completion of the row: without this, each completion's verdict
compiled it again (testlib's ``ncmp.cpp`` with ``testlib.h``: about 7 s of g++ each time). The first run of a
source compiles it in the sandbox as always, and the sandbox's supervisor sends the binary back right after the
compiler has exited, before any test of the job runs (so nothing of the program has run yet); later runs of the
same source write that binary into the sandbox instead of compiling. What is compiled is a function of what the
key covers (:func:`key`: the language, the compiler's command line and binary, the source and the files compiled
with it), so a run from the cache does exactly what a compile would have made it do. Only a compile that
succeeded is kept, in memory, by the host process (at most :data:`MAX_BYTES` in all, the least recently used
dropped first, no binary over :data:`MAX_BINARY`); nothing is written to disk.

Runs of one source in several threads at once compile it once: the others wait for that compile (at most its
own time limit) and then use its binary, or compile themselves when it failed. A forked child keeps the binaries
and starts with no compile in progress.

>>> cache = CompileCache(max_bytes=10)
>>> cache.claim("k", wait=0.0) is None   # nothing kept yet: this caller compiles
True
>>> cache.done("k", b"\\x7fELF")
>>> cache.claim("k", wait=0.0), cache.hits, cache.misses
(b'\\x7fELF', 1, 1)
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections import OrderedDict
from typing import Any

from grpo_rewards.forking import renew_after_fork

#: the most bytes of binaries one process keeps
MAX_BYTES = 128 << 20
#: the largest binary kept (a larger one is compiled on every run)
MAX_BINARY = 16 << 20


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
    :meth:`claim`'s answers."""

    def __init__(self, max_bytes: int = MAX_BYTES, max_binary: int = MAX_BINARY) -> None:
        self.max_bytes, self.max_binary = max_bytes, max_binary
        self.hits = self.misses = 0
        self._kept: OrderedDict[str, bytes] = OrderedDict()
        self._size = 0
        self._compiling: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        renew_after_fork(self)

    def _after_fork(self) -> None:
        """In a forked child (``datasets.map(num_proc=...)``): a lock of its own (another thread of the parent
        may have held this one at the fork) and no compile in progress (the parent's threads do not exist
        here: nothing would end them). The binaries are kept."""
        self._lock = threading.Lock()
        self._compiling = {}

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
                    self.misses += 1
                    return None
            compiling.wait(wait)
        with self._lock:  # the other compile failed or is still running: compile as well
            self.misses += 1
            self._compiling.setdefault(name, threading.Event())
        return None

    def done(self, name: str, binary: bytes | None) -> None:
        """The compile claimed by :meth:`claim` ended: keep ``binary`` (None: it made none) and wake the
        threads waiting for it. Called again for the same compile, does nothing."""
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
        """Forget every binary (and the counts)."""
        with self._lock:
            self._kept.clear()
            self._size = self.hits = self.misses = 0


#: this process's cache, used by :class:`grpo_rewards_code.runner.LocalRunner`
CACHE = CompileCache()
