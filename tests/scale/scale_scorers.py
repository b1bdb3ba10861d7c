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
    """1.0 when this runs inside a Ray task, 0.0 elsewhere."""
    import sys

    if "ray" not in sys.modules:
        return 0.0
    import ray

    return 1.0 if ray.is_initialized() and ray.get_runtime_context().get_task_id() is not None else 0.0


def hold(text: str, marker_dir: str, **row: Any) -> float:
    """Write ``marker_dir/<text>.started`` (the Ray node id and the pid) and wait for ``marker_dir/release``."""
    import ray

    Path(marker_dir, f"{text}.started").write_text(f"{ray.get_runtime_context().get_node_id()} {os.getpid()}")
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
