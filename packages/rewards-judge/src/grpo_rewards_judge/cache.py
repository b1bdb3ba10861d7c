"""The judge's cache: a reply is asked for once per (model, template, inputs, sampling).

In memory always (bounded, oldest out first); on disk too when the reward is given a
``cache_path`` (an SQLite file it creates on first use, or one it created before), so a second
``grpo-rewards score`` of the same rows, or a completion a policy repeats across steps, costs no
request. Only a judge's actual replies are kept (``scored``, ``unparsable``, ``truncated``, ``refused``),
each with how it ended (``finish_reason``: a reply cut at ``max_tokens`` reads back as cut): a timeout or an
unreachable server is asked again next time. A file written before ``finish_reason`` was kept gains the column
(its older replies read back without one).

>>> cache = JudgeCache()
>>> k = key("model", "template", ["Rate: 4"], {"temperature": 0.0})
>>> cache.put(k, "Score: 9", "stop"); cache.get(k), cache.get(key("model", "template", ["Rate: 5"], {}))
(Cached(reply='Score: 9', finish_reason='stop'), None)
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from grpo_rewards.forking import renew_after_fork

#: The table a cache file holds; a file with any other content is refused, never overwritten.
_TABLE = "grpo_rewards_judge_replies"


class Cached(NamedTuple):
    """A cached reply: its text and how it ended (``None``: not known)."""

    reply: str
    finish_reason: str | None = None


def key(model: str, template: str, inputs: Sequence[Any], sampling: Mapping[str, Any]) -> str:
    """A stable digest of everything that decides the judge's reply."""
    blob = json.dumps([model, template, list(inputs), dict(sampling)], sort_keys=True, ensure_ascii=False,
                      default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


class JudgeCache:
    """Replies by key, in memory (``max_entries``) and, with ``path``, in an SQLite file."""

    def __init__(self, path: str | Path | None = None, max_entries: int = 100_000) -> None:
        self.path = None if path is None else Path(path).expanduser()
        self.max_entries = max_entries
        self._memory: OrderedDict[str, Cached] = OrderedDict()
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        renew_after_fork(self)
        if self.path is not None and self.path.exists():  # refused now, before training; a new file is made on first use
            _open(self.path).close()

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "max_entries": self.max_entries}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"], state["max_entries"])  # type: ignore[misc]

    def _after_fork(self) -> None:
        """In a forked child: a lock and, on first use, a connection of its own. SQLite forbids using a connection
        opened before ``fork()`` in the child; the inherited one is kept, unused and unclosed, for the parent."""
        self._lock = threading.Lock()
        if self._db is not None:
            _INHERITED.append(self._db)
            self._db = None

    def get(self, k: str) -> Cached | None:
        with self._lock:
            if k in self._memory:
                self._memory.move_to_end(k)
                return self._memory[k]
            if self.path is None:
                return None
            row = self._connection().execute(f"SELECT reply, finish_reason FROM {_TABLE} WHERE key = ?",
                                             (k,)).fetchone()
        if row is None:
            return None
        cached = Cached(str(row[0]), None if row[1] is None else str(row[1]))
        self._remember(k, cached)
        return cached

    def put(self, k: str, reply: str, finish_reason: str | None = None) -> None:
        self._remember(k, Cached(reply, finish_reason))
        if self.path is not None:
            with self._lock:
                db = self._connection()
                db.execute(f"INSERT OR REPLACE INTO {_TABLE} (key, reply, finish_reason) VALUES (?, ?, ?)",
                           (k, reply, finish_reason))
                db.commit()

    def _connection(self) -> sqlite3.Connection:
        """The open cache file (opened, or created, on first use); call with the lock held."""
        if self._db is None:
            assert self.path is not None
            self._db = _open(self.path)
        return self._db

    def _remember(self, k: str, cached: Cached) -> None:
        with self._lock:
            self._memory[k] = cached
            self._memory.move_to_end(k)
            while len(self._memory) > self.max_entries:
                self._memory.popitem(last=False)

    def __len__(self) -> int:
        return len(self._memory)


def _open(path: Path) -> sqlite3.Connection:
    """The cache file at ``path``: created when absent; refused when it is anything but a judge cache."""
    if path.exists() and not path.is_file():
        raise ValueError(f"cache_path {str(path)!r} is not a file")
    existed = path.exists() and path.stat().st_size > 0
    if not existed:
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        db = sqlite3.connect(str(path), check_same_thread=False, timeout=30.0)
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        raise ValueError(f"cache_path {str(path)!r} exists and is not a judge cache ({exc}); "
                         "name a new file (it is never overwritten)") from None
    if existed and tables != {_TABLE}:
        db.close()
        raise ValueError(f"cache_path {str(path)!r} exists and is not a judge cache (its tables: "
                         f"{sorted(tables) or 'none'}); name a new file (it is never overwritten)")
    db.execute(f"CREATE TABLE IF NOT EXISTS {_TABLE} (key TEXT PRIMARY KEY, reply TEXT NOT NULL, finish_reason TEXT)")
    if "finish_reason" not in {row[1] for row in db.execute(f"PRAGMA table_info({_TABLE})")}:
        db.execute(f"ALTER TABLE {_TABLE} ADD COLUMN finish_reason TEXT")  # a file of an earlier version
    db.commit()
    return db


#: connections a forked child inherited: never used or closed there
_INHERITED: list[sqlite3.Connection] = []
