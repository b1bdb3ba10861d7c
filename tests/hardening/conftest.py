"""Fixtures and /proc helpers for the hardening tests (fuzzing, faults, security, kill/resume)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
if str(HERE) not in sys.path:  # fuzz_inputs and hardening_workers (also imported by worker processes)
    sys.path.insert(0, str(HERE))


def children(pid: int | None = None) -> list[tuple[int, str]]:
    """(pid, state letter) of every direct child process of ``pid`` (default: this process)."""
    parent = os.getpid() if pid is None else pid
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent:
            out.append((int(entry), fields[0]))
    return out


def zombies() -> list[int]:
    return [pid for pid, state in children() if state == "Z"]


def rss_kib(pid: int | str = "self") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.fixture(scope="session")
def hardening_registry():
    """Every installed plugin, discovered as a user's process would."""
    from grpo_rewards import load_registry

    return load_registry()
