"""One Ctrl-C stops ``grpo-rewards train`` even when the main thread cannot act on it in time.

The guard (``grpo_rewards.cli.train._ctrl_c_guard``) reads the signal from Python's wakeup pipe in a
daemon thread; if the main thread has not ended the run within the grace period, it does.
"""

from __future__ import annotations

import subprocess
import sys

from train_helpers import child_as_from_a_terminal, ctrl_c

# The main thread gets its KeyboardInterrupt, but its cleanup then waits for a thread that never ends
# (as a cleanup waiting for a reward that never returns would): only the guard can end this process.
STUCK = """
import threading, time
import grpo_rewards.cli.train as train

train.CTRL_C_GRACE = 0.5
with train._ctrl_c_guard():
    forever = threading.Thread(target=time.sleep, args=(10**6,), name="stuck")
    forever.start()
    print("ready", flush=True)
    try:
        time.sleep(10**6)
    finally:
        forever.join()
"""

FINISHES = """
import grpo_rewards.cli.train as train

with train._ctrl_c_guard():
    pass
print("done", flush=True)
"""


def test_a_run_whose_cleanup_never_ends_stops_on_one_ctrl_c():
    with child_as_from_a_terminal([sys.executable, "-c", STUCK]) as proc:
        assert proc.stdout.readline() == "ready\n"  # type: ignore[union-attr]
        err = ctrl_c(proc)
    assert proc.returncode == 130
    assert err.splitlines()[-1] == "grpo-rewards: interrupted"


def test_a_run_that_ends_leaves_no_guard_behind():
    done = subprocess.run([sys.executable, "-c", FINISHES], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (0, "done\n", "")
