"""The Ray backend's task: what runs in a Ray worker process for one sample (see :mod:`.ray_backend`).

:func:`run_item` loads the reward's function (cached per worker, like the local pool's workers do),
yields :data:`GO` when the item starts (the driver's deadline counts from there), caps how much
address space the worker may add while the item runs, and yields ``(status, value)``.
"""

from __future__ import annotations

import os
import pickle
import sys
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

from ..scorer_hooks import warm_up
from .batch import CACHED_FUNCTIONS
from .memory import default_max_memory
from .messages import error_text

__all__ = ["GO", "probe", "run_item"]

#: What a task yields first: its function is loaded and its item starts now.
GO = "go"


_functions: OrderedDict[str, Callable[..., Any]] = OrderedDict()


def _load(key: str, payload: bytes, paths: list[str]) -> Callable[..., Any]:
    func = _functions.get(key)
    if func is not None:
        _functions.move_to_end(key)
        return func
    missing = [p for p in paths if p not in sys.path]
    if missing:  # after the worker's own path: what is installed on the node comes first
        sys.path.extend(missing)
    func = pickle.loads(payload)
    warm_up(func)
    _functions[key] = func
    while len(_functions) > CACHED_FUNCTIONS:
        _functions.popitem(last=False)
    return func


def _address_space() -> int:
    """This process's current address-space size in bytes (``VmSize``)."""
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _cap_growth(max_memory: int | None) -> tuple[int, int] | None:
    """Let this process's address space grow by at most ``max_memory`` bytes (None: the local pool's
    default for one worker per CPU of this node; 0: no cap); the limits to restore."""
    if max_memory is None:
        max_memory = default_max_memory(os.cpu_count() or 1)
    if not max_memory or not sys.platform.startswith("linux"):
        return None
    import resource

    before = resource.getrlimit(resource.RLIMIT_AS)
    soft = _address_space() + max_memory
    if before[1] != resource.RLIM_INFINITY:
        soft = min(soft, before[1])
    resource.setrlimit(resource.RLIMIT_AS, (soft, before[1]))
    return before


def run_item(key: str, payload: bytes, paths: list[str], args: tuple[Any, ...],
             max_memory: int | None) -> Iterator[Any]:
    """The body of one Ray task: yield :data:`GO` once the function is loaded, then ``(status, value)``."""
    try:
        func = _load(key, payload, paths)
    except BaseException as exc:
        yield ("error", f"cannot load the function in a Ray worker: {error_text(exc)} (a reward run on Ray must be "
                        "defined in a module installed on every node, not in __main__)")
        return
    yield GO
    restore = _cap_growth(max_memory)
    try:
        result: tuple[str, Any] = ("ok", func(*args))
    except MemoryError as exc:
        result = ("memory", f"exceeded its memory cap ({error_text(exc)})")
    except BaseException as exc:
        result = ("error", error_text(exc))
    finally:
        if restore is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, restore)
    try:
        pickle.dumps(result)
    except Exception as exc:
        result = ("error", f"returned an unpicklable value: {exc}")
    yield result


def probe() -> str:
    """Run on the cluster at connect time: a worker that runs it has imported this module, so the core."""
    from importlib import metadata

    return metadata.version("grpo-rewards")
