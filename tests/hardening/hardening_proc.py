"""/proc helpers for the fault tests: child processes and their states."""

from __future__ import annotations

import os
from pathlib import Path


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

