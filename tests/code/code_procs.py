"""/proc helpers of the code tests: which sandboxed processes this test process has."""

from __future__ import annotations

import os


def _descends_from(pid: int, ancestor: int) -> bool:
    while pid > 1:
        if pid == ancestor:
            return True
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
    return False


def sandbox_processes() -> list[str]:
    """This test process's sandboxed processes (any process in a PID namespace of its own: an idle warm
    sandbox's zygote, process 1 of its namespace, is the one allowed), one line each: pid, its pid inside, args."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or not _descends_from(int(entry), os.getpid()):
            continue
        try:
            with open(f"/proc/{entry}/status") as f:
                nspid = next(line for line in f if line.startswith("NSpid:")).split()[1:]
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except (OSError, StopIteration):
            continue
        if len(nspid) < 2:
            continue  # bwrap's own process on the host side, outside the namespace
        if nspid[-1] == "1" and b"zygote" in args[-3:]:
            continue
        out.append(f"{entry} ({nspid[-1]} inside) {b' '.join(args)[:120]!r}")
    return out


def score_and_list_sandboxes(program: str) -> tuple[float, list[int]]:
    """In a worker of the core's pool: score ``program`` (one stdio test), then the host pids of this
    thread's warm sandboxes, which the worker spares at the end of the task (keep_across_tasks)."""
    from grpo_rewards_code import TestsPassed
    from grpo_rewards_code.warm import thread_sandboxes

    value = TestsPassed()(f"```python\n{program}\n```", tests=[{"input": "2 3\n", "output": "5\n"}])
    return value, thread_sandboxes()
