"""``ResultCache``: a batch's result kept per reward, so a reward another one reads (``inputs:``) runs once.

A reward set gives all its rewards one cache; a reward that reads another's values (``inputs:``)
finds the batch already scored there, or waits while a concurrent caller scores it.

>>> cache = ResultCache()
>>> batch = ["a", "b"]
>>> cache.put("m", batch, RewardResult([1.0, 0.0], ["ok", "ok"], 0.1))
>>> cache.get("m", batch).values, cache.get("m", ["a", "b"])
([1.0, 0.0], None)
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from .protocol import RewardResult

__all__ = ["ResultCache"]


class ResultCache:
    """Results of the last batch per metric name, so a reward computed once is reused by others.

    A batch is recognised by the identity of its ``completions`` list (TRL passes the same list
    to every reward of a step); the cache keeps that list alive, so its id cannot be reused.
    """

    def __init__(self) -> None:
        self._entries: dict[str, tuple[Any, list[int], RewardResult]] = {}
        self._lock = threading.Lock()
        self._computing: dict[tuple[str, int], list[Any]] = {}  # (name, id(batch)) -> [lock, users]
        #: whether a reward reads another's result through ``inputs`` (only then may two callers compute
        #: one batch at once for each other: see :meth:`computing`)
        self.has_readers = False

    def computing(self, name: str, completions: Sequence[Any]) -> _Computing:
        """Held while ``name`` computes the batch ``completions`` (a context manager): a reward run
        concurrently with one that reads it through ``inputs`` computes once, and the other waits for
        its result (another batch, or a call that hangs on another batch, never waits)."""
        return _Computing(self, (name, id(completions)))  # the batch is alive while computed: its id is its own

    def get(self, metric: str, completions: Sequence[Any]) -> RewardResult | None:
        entry = self._entries.get(metric)  # one dict read or write is atomic: no lock
        if entry is not None and entry[0] is completions and entry[1] == list(map(id, completions)):
            return entry[2]
        return None

    def put(self, metric: str, completions: Sequence[Any], result: RewardResult) -> None:
        self._entries[metric] = (completions, list(map(id, completions)), result)

    def __getstate__(self) -> dict[str, Any]:
        return {"has_readers": self.has_readers}  # results and locks stay in this process

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]
        self.has_readers = bool(state.get("has_readers"))


class _Computing:
    """``ResultCache.computing``'s context: a per-(reward, batch) lock, dropped when its last user leaves
    (a plain class: a generator-based context manager costs more than the rest of a one-sample call)."""

    __slots__ = ("cache", "entry", "key")

    def __init__(self, cache: ResultCache, key: tuple[str, int]) -> None:
        self.cache, self.key = cache, key
        self.entry: list[Any] = []

    def __enter__(self) -> None:
        cache = self.cache
        with cache._lock:
            entry = cache._computing.get(self.key)
            if entry is None:
                entry = cache._computing[self.key] = [threading.RLock(), 0]
            entry[1] += 1
        self.entry = entry
        try:
            entry[0].acquire()
        except BaseException:
            self._leave()
            raise

    def __exit__(self, *exc: object) -> None:
        self.entry[0].release()
        self._leave()

    def _leave(self) -> None:
        cache, entry = self.cache, self.entry
        with cache._lock:
            entry[1] -= 1
            if not entry[1]:
                del cache._computing[self.key]
