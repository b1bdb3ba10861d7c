"""Scorers that start processes, hold memory or change their worker: the containment tests run them in workers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

#: A child that double-forks; the grandchild leaves the session (setsid), writes its pid and sleeps.
DOUBLE_FORK = """
import os, sys, time
if os.fork():
    os._exit(0)
os.setsid()
if os.fork():
    os._exit(0)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(os.getpid()))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(600)
"""


def escape(pid_file: str, then: str) -> str:
    """Start a setsid double-forked grandchild and a plain ``sleep`` child (pids into ``pid_file`` and
    ``pid_file.child``), wait until the grandchild is there, then ``then``: return, overrun, crash."""
    child = subprocess.Popen(["sleep", "600"])
    Path(pid_file + ".child").write_text(str(child.pid))
    subprocess.run([sys.executable, "-c", DOUBLE_FORK, pid_file], check=True)
    while not os.path.exists(pid_file):
        time.sleep(0.01)
    if then == "overrun":
        time.sleep(600)
    elif then == "crash":
        os._exit(3)
    return "returned"


def allocate(megabytes: int) -> int:
    """Allocate and touch ``megabytes`` MB; returns how many bytes were held."""
    block = bytearray(megabytes * 1_000_000)
    block[::4096] = b"\x01" * len(block[::4096])
    return len(block)


def change_worker(what: str) -> str:
    """Change the worker's cwd, environment or signal handling; returns what was changed."""
    if what == "cwd":
        os.chdir("/")
    elif what == "environ":
        os.environ["GRPO_REWARDS_LEAK"] = "1"
        os.environ.pop("PATH", None)
    elif what == "signals":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
        signal.alarm(600)
    return what


def look_at_worker(_: int) -> dict[str, object]:
    """What the next task sees: cwd, the leaked variable, PATH, SIGTERM's handler, the blocked signals."""
    return {"cwd": os.getcwd(), "leak": os.environ.get("GRPO_REWARDS_LEAK"), "path": "PATH" in os.environ,
            "sigterm": str(signal.getsignal(signal.SIGTERM)),
            "blocked": sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, ())),
            "alarm": signal.getitimer(signal.ITIMER_REAL)[0]}


def allocate_for_text(text: str, **row: object) -> float:
    """Allocates ``int(text)`` MB, returns it as a float."""
    return float(allocate(int(text)) // 1_000_000)


def start_helpers(pid_file: str) -> list[int]:
    """Start two sleeping children; keep the first across tasks (as a reward's own helper), not the second."""
    from grpo_rewards import keep_across_tasks

    kept = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    keep_across_tasks(kept.pid)
    Path(pid_file).write_text(f"{kept.pid} {other.pid}")
    return [kept.pid, other.pid]


def alive_children(_: int) -> list[int]:
    """The pids of this worker's children now (the next task's view)."""
    from grpo_rewards.execution.containment import children

    return sorted(children(os.getpid()))


def keep_a_stranger(pid: int) -> str:
    from grpo_rewards import keep_across_tasks

    try:
        keep_across_tasks(pid)
    except ValueError as exc:
        return str(exc)
    return "kept"


def nested_task(pid_file: str) -> tuple[int, int]:
    """Run :func:`escape` (a double-forked grandchild that leaves its session) in a pool made inside this
    worker, as a reward called by a reward run in workers does; the nested worker's pid and the grandchild's."""
    from grpo_rewards.execution import map_with_deadline
    from grpo_rewards.execution.pool import get_pool

    Path(pid_file).unlink(missing_ok=True)
    [outcome] = map_with_deadline(escape, [(pid_file, "return")], timeout=30.0, workers=1, owner="nested")
    [nested] = get_pool(1, "nested").worker_pids
    return nested, int(Path(pid_file).read_text()) if outcome.status == "ok" else -1
