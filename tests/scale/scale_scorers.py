"""Module-level scorers the scale tests send to workers and Ray tasks (importable there by name)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any


def sleepy(text: str, **row: Any) -> float:
    """``sleep:<seconds>`` sleeps that long first; the value is the text's length."""
    if text.startswith("sleep:"):
        time.sleep(float(text.split(":")[1].split()[0]))
    return float(len(text))


def stuck(text: str, marker_dir: str, **row: Any) -> float:
    """``stuck`` writes its process id to ``marker_dir/<pid>.pid`` and sleeps for ten minutes."""
    if text == "stuck":
        Path(marker_dir, f"{os.getpid()}.pid").write_text(str(os.getpid()))
        time.sleep(600)
    return float(len(text))


def dies(text: str, **row: Any) -> float:
    """``die`` kills its own process (SIGKILL), as the kernel's OOM killer would."""
    if text == "die":
        os.kill(os.getpid(), signal.SIGKILL)
    return float(len(text))


def raises(text: str, **row: Any) -> float:
    """``boom`` raises ValueError."""
    if text == "boom":
        raise ValueError("boom on purpose")
    return float(len(text))


def in_ray_worker(text: str, **row: Any) -> float:
    """1.0 when this runs under a Ray worker (in the reward's own worker process, which a Ray worker
    started and which carries the environment Ray gives its workers), 0.0 elsewhere."""
    return 1.0 if os.environ.get("RAY_RAYLET_PID") and _under_ray_worker() else 0.0


def _under_ray_worker() -> bool:
    """Whether an ancestor of this process is a Ray worker (its command line is ``ray::...``)."""
    pid = os.getppid()
    while pid > 1:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if f.read().startswith(b"ray::"):
                    return True
            with open(f"/proc/{pid}/stat", encoding="ascii") as f:
                pid = int(f.read().rsplit(") ", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
    return False


def hold(text: str, marker_dir: str, **row: Any) -> float:
    """Write ``marker_dir/<text>.started`` (the process id of the Ray node's raylet, which tells the node,
    and this process's) and wait for ``marker_dir/release``."""
    Path(marker_dir, f"{text}.started").write_text(f"{os.environ['RAY_RAYLET_PID']} {os.getpid()}")
    deadline = time.monotonic() + 300
    while not Path(marker_dir, "release").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return 1.0


def allocates(text: str, **row: Any) -> float:
    """``alloc:<MiB>`` allocates that much memory and touches it."""
    if text.startswith("alloc:"):
        block = bytearray(int(text.split(":")[1]) * 2**20)
        block[:: 4096] = b"x" * len(block[:: 4096])
        return float(len(block) > 0)
    return float(len(text))


def meet(text: str, marker_dir: str, **row: Any) -> float:
    """Write ``marker_dir/<text>``, then wait (up to a minute) for ``marker_dir/<the other text>``: 1.0 if it
    came, 0.0 if not. ``a`` waits for ``b`` and ``b`` for ``a``: both get 1.0 only when they run at once."""
    Path(marker_dir, text).write_text("here")
    other = Path(marker_dir, "b" if text == "a" else "a")
    deadline = time.monotonic() + 60
    while not other.exists():
        if time.monotonic() > deadline:
            return 0.0
        time.sleep(0.02)
    return 1.0
