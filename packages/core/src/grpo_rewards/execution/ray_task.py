"""The Ray backend's task: what runs in a Ray worker process for one sample (see :mod:`.ray_backend`).

:func:`run_item` never loads the reward's function in the Ray worker itself: it hands the item to a
worker process of the reward's own (:func:`~.pool.get_pool` keyed by the reward, one process, kept
warm across tasks), so that no two rewards share a process's Python state on Ray either. It first
has that process load the function (unpickled and warmed up there, cached like every pool worker's
functions), yields :data:`GO` (the driver's deadline counts from there), runs the item there under
the memory cap, and yields ``(status, value)``: the local pool's outcome.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from collections.abc import Callable, Iterator
from typing import Any

from ..scorer_hooks import warm_up
from .memory import default_max_memory
from .pool import get_pool

__all__ = ["GO", "probe", "run_item"]

#: What a task yields first: its function is loaded and its item starts now.
GO = "go"
#: The item that only loads the function in the reward's worker process (it returns None).
_LOAD = "grpo-rewards: load"

#: Per owner, the function its worker process last loaded and the pool's count of started workers
#: then: while both hold, the next task of that function skips the load round trip.
_loaded: dict[str, tuple[str, int]] = {}


class _Payload:
    """A reward's pickled function, opened only in the reward's own worker process (never in the Ray worker)."""

    def __init__(self, payload: bytes) -> None:
        self.payload = payload
        self._func: Callable[..., Any] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"payload": self.payload, "_func": None}

    def _load(self) -> Callable[..., Any]:
        if self._func is None:
            func = pickle.loads(self.payload)
            warm_up(func)
            self._func = func
        return self._func

    def warmup(self) -> None:
        self._load()

    def __call__(self, *args: Any) -> Any:
        if args == (_LOAD,):
            return None
        return self._load()(*args)


def run_item(payload: bytes, paths: list[str], args: tuple[Any, ...], max_memory: int | None,
             owner: str = "") -> Iterator[Any]:
    """The body of one Ray task: yield :data:`GO` once ``owner``'s worker process has loaded the
    function, then ``(status, value)``."""
    cap = default_max_memory(os.cpu_count() or 1) if max_memory is None else max_memory
    function = _Payload(payload)
    try:
        missing = [p for p in paths if p not in sys.path]
        if missing:  # after the worker's own path: what is installed on the node comes first
            sys.path.extend(missing)
        pool = get_pool(1, owner)  # a worker process inherits this process's sys.path
        digest = hashlib.sha1(payload).hexdigest()
        loaded = None
        if _loaded.get(owner) != (digest, pool.stats["spawned"]):
            loaded = pool.map(function, [(_LOAD,)], timeout=None, max_memory=cap)[0]
    except BaseException as exc:
        yield ("error", f"cannot start the reward's worker process in a Ray worker: {type(exc).__name__}: {exc}")
        return
    if loaded is not None:
        if loaded.status != "ok":  # the pool's own words (a function defined in __main__, a missing package)
            yield (loaded.status, f"{loaded.error} (in a Ray worker: the reward's module must be installed on every "
                                  "node)")
            return
        _loaded[owner] = (digest, pool.stats["spawned"])
    yield GO
    try:
        outcome = pool.map(function, [args], timeout=None, max_memory=cap)[0]
        result: tuple[str, Any] = ("ok", outcome.value) if outcome.status == "ok" else (outcome.status, outcome.error)
    except BaseException as exc:
        result = ("error", f"{type(exc).__name__}: {exc}")
    try:
        pickle.dumps(result)
    except Exception as exc:
        result = ("error", f"returned an unpicklable value: {exc}")
    yield result


def probe() -> str:
    """Run on the cluster at connect time: a worker that runs it has imported this module, so the core."""
    from importlib import metadata

    return metadata.version("grpo-rewards")
