"""Module-level functions the fault tests run in worker processes (they must be importable there)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import grpo_rewards

_HOARD: list[bytes] = []


def slow_square(x: int, delay: float) -> int:
    time.sleep(delay)
    return x * x


def whoami(x: int) -> tuple[int, int]:
    return os.getpid(), x


def leak(megabytes: int) -> tuple[int, int]:
    """Keeps ``megabytes`` of touched memory for the life of the process; returns (pid, RSS in KiB)."""
    _HOARD.append(b"\x01" * (megabytes * 1_000_000))
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return os.getpid(), int(line.split()[1])
    return os.getpid(), 0


def length_unless_boom(text: str, **row: Any) -> float:
    """len(text), and a ValueError on a completion containing BOOM."""
    if "BOOM" in text:
        raise ValueError("BOOM in the completion")
    return float(len(text))


def slow_length(text: str, **row: Any) -> float:
    time.sleep(0.05)
    return float(len(text))


def crash_on_crash(text: str, **row: Any) -> float:
    """len(text); the worker process dies (SIGKILL to itself) on a completion containing CRASH."""
    if "CRASH" in text:
        import signal

        os.kill(os.getpid(), signal.SIGKILL)
    return float(len(text))


def length_unless_pow(text: str, **row: Any) -> float:
    """len(text); on a completion containing POW, one C call that runs for hours (9 ** 9 ** 9)."""
    if "POW" in text:
        base = 9
        return float(base ** base ** base % 7)
    return float(len(text))


# -- an in-process plugin for reward-set and score_rows tests ---------------------------------
@grpo_rewards.hookimpl
def register_rewards(register: Any) -> None:
    register("boom", length_unless_boom)
    register("slow", slow_length)
    register("crash", crash_on_crash)


# -- for the pool-in-real-use tests ------------------------------------------------------------
def logged_sleep(log: str, index: int, delay: float, then: str = "return") -> int:
    """Appends ``index`` to the file ``log`` (one line a run, so a re-run shows), sleeps ``delay``, then returns
    ``index``; with ``then="exit"`` the worker process exits (code 9) instead, and with ``then="hold_gil"`` it
    runs one C call for hours without letting any other thread of the worker run (9 ** 9 ** 9)."""
    with open(log, "a", encoding="utf-8") as fh:
        fh.write(f"{index}\n")
    time.sleep(delay)
    if then == "exit":
        os._exit(9)
    if then == "hold_gil":
        base = 9
        return base**base**base % 7
    return index


class Plus:
    """``x + k``: each ``k`` pickles differently, so every instance is a new function to a worker."""

    def __init__(self, k: int) -> None:
        self.k = k

    def __call__(self, x: int) -> int:
        return x + self.k


def score_texts(batch: dict[str, list[Any]], reward: Any) -> dict[str, list[Any]]:
    """A ``datasets.map`` function: the reward's values, and this process's pid and pool pids."""
    from grpo_rewards.execution import get_pool

    scores = reward(completions=batch["text"])
    pool = " ".join(map(str, sorted(get_pool(2, reward.pool_owner).pids)))
    return {"score": scores, "pid": [os.getpid()] * len(scores), "pool": [pool] * len(scores)}
