"""Slow scorers for bench_concurrent.py and bench_ray.py (a module, so that workers and Ray tasks import them).

``program_output`` stands in for a code-execution reward until one is installed: each sample runs a
real subprocess (a fresh ``python -S`` reading the completion on stdin, under a time limit) and the
output is compared outside it, as a code reward's sandbox runner does.
"""

from __future__ import annotations

import subprocess
import sys
import time

#: The "tests": the program counts the words of its input and prints the count.
PROGRAM = "import sys; print(len(sys.stdin.read().split()))"


def program_output(text: str, **row: object) -> float:
    """1.0 when a real subprocess, given the completion on stdin, prints its word count (always, unless it fails)."""
    run = subprocess.run([sys.executable, "-S", "-c", PROGRAM], input=text, capture_output=True, text=True,
                         timeout=10, env={})
    return 1.0 if run.returncode == 0 and run.stdout.strip() == str(len(text.split())) else 0.0


def sleeps_50ms(text: str, **row: object) -> float:
    """Waits 50 ms a sample (a remote judge's latency), then scores the length."""
    time.sleep(0.05)
    return min(1.0, len(text) / 100)


def sleeps_80ms(text: str, **row: object) -> float:
    """Waits 80 ms a sample, then scores the word count."""
    time.sleep(0.08)
    return min(1.0, len(text.split()) / 20)


def length(text: str, **row: object) -> float:
    """~1 µs: the length in characters (for the per-task overhead)."""
    return float(len(text))
