"""One Ctrl-C stops ``grpo-rewards train`` even when the main thread cannot act on it in time.

The guard (``grpo_rewards.cli.train._ctrl_c_guard``) reads the signal from Python's wakeup pipe in a
daemon thread; if the main thread has not ended the run within the grace period, it does.
"""

from __future__ import annotations

import signal
import subprocess
import sys

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


def _as_from_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_a_run_whose_cleanup_never_ends_stops_on_one_ctrl_c():
    proc = subprocess.Popen([sys.executable, "-c", STUCK], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_as_from_a_terminal)
    try:
        assert proc.stdout.readline() == "ready\n"  # type: ignore[union-attr]
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    assert err.splitlines()[-1] == "grpo-rewards: interrupted"


def test_a_run_that_ends_leaves_no_guard_behind():
    done = subprocess.run([sys.executable, "-c", FINISHES], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (0, "done\n", "")
