"""Where a command's CPU goes, process by process: BSD process accounting over the whole run, grouped by what ran.

The kernel writes one record per process when it exits (``acct(2)``: its pid, parent, command name and CPU), so
processes that live a tenth of a second (reward workers, sandboxed programs, compilers) count as fully as the
long ones, which a ``/proc`` sampler misses. A sampler beside it reads the processes' command lines (every 0.1 s)
to name what the records are; a process too short for it takes the name of its nearest ancestor it saw. Every
process that ends while the command runs is counted, the command's or not (Ray's detached runner and daemons are
not its descendants): run it on an otherwise idle machine. Needs root (``acct`` is privileged) and a kernel with
process accounting.

    sudo python bench/suite_cpu.py -- .venv/bin/python -m pytest -n auto --dist loadgroup -q -p no:cacheprovider

prints the command's wall time and exit status, then CPU-seconds by group (the xdist workers, reward worker
processes, Ray, ``transformers serve``, training subprocesses, sandboxes, compilers, ...) and the 15 busiest
processes. Results: bench/README.md ("where pytest's time goes").
"""

from __future__ import annotations

import argparse
import collections
import ctypes
import json
import os
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import NamedTuple

#: ``struct acct_v3`` (linux/acct.h): 64 bytes; times are ``comp_t`` in clock ticks (``AHZ`` = 100).
RECORD = struct.Struct("<BBHIIIIIIf8H16s")
TICKS = 100
#: Substrings of a command line and the group they name, the first that matches wins.
GROUPS = [
    ("exec(eval(sys.stdin", "xdist workers"), ("-m pytest -n", "pytest controller"),
    ("containment.py", "reward workers"), ("execution.worker import _worker_entry", "reward workers"),
    ("transformers serve", "transformers serve"), ("spawn_main", "multiprocessing children"),
    ("ray/", "ray"), ("gcs_server", "ray"), ("raylet", "ray"), ("ray::", "ray"), ("-m ray_runs", "ray"),
    ("--junitxml=/tmp/grpo-netns", "ray"),
    ("grpo-rewards train", "training subprocesses"), ("grpo_rewards.cli train", "training subprocesses"),
    ("torchrun", "training subprocesses"), ("train_launch", "training subprocesses"),
    ("trl grpo", "training subprocesses"), ("trl/scripts", "training subprocesses"),
    ("bwrap", "sandboxes"), ("python3.11 -I -S -B", "sandboxes"), ("-m pip", "pip"), ("pip/_vendor", "pip"),
]
COMPILERS = {"cc1plus", "cc1", "as", "ld", "collect2", "g++", "javac", "java", "rustc", "node", "sqlite3"}


def _comp(value: int) -> float:
    """A ``comp_t`` (13-bit mantissa, 3-bit base-8 exponent) in seconds."""
    return ((value & 0x1FFF) << (3 * (value >> 13))) / TICKS


class Record(NamedTuple):
    """One ended process: its pid, its parent's, its CPU (user + system seconds) and its command name."""

    pid: int
    ppid: int
    cpu: float
    comm: str


def read_records(path: Path) -> list[Record]:
    data = path.read_bytes()
    records = []
    for start in range(0, len(data) - RECORD.size + 1, RECORD.size):
        fields = RECORD.unpack_from(data, start)
        records.append(Record(fields[6], fields[7], _comp(fields[10]) + _comp(fields[11]),
                              fields[18].split(b"\0")[0].decode(errors="replace")))
    return records


def sample_command_lines(stop: threading.Event, found: dict[int, str]) -> None:
    """Every process's command line, read again each 0.1 s until ``stop``: the last one seen is kept (a child
    shows its parent's line between ``fork`` and ``exec``)."""
    while not stop.is_set():
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    raw = Path(f"/proc/{entry}/cmdline").read_bytes()
                except OSError:
                    continue
                if raw:
                    found[int(entry)] = raw.replace(b"\0", b" ").decode(errors="replace")[:300]
        time.sleep(0.1)


def group(record: Record, by_pid: dict[int, Record], commands: dict[int, str]) -> str:
    """The group of a process: its own command line's, else its nearest named ancestor's (a process whose line
    was never seen inherits it), else its command name."""
    seen = 0
    current: Record | None = record
    while current is not None and seen < 64:
        line = commands.get(current.pid, "")
        for needle, name in GROUPS:
            if needle in line:
                return name
        if current.comm in COMPILERS:
            return "compilers and language runtimes"
        current = by_pid.get(current.ppid)
        seen += 1
    return f"other ({record.comm})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command to run, after --")
    parser.add_argument("--json", type=Path, help="also write the groups and records here")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to measure after --")
    libc = ctypes.CDLL(None, use_errno=True)
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "acct"
        log.touch()
        if libc.acct(str(log).encode()) != 0:
            sys.exit(f"acct() failed: {os.strerror(ctypes.get_errno())} (root and process accounting are needed)")
        commands: dict[int, str] = {}
        stop = threading.Event()
        sampler = threading.Thread(target=sample_command_lines, args=(stop, commands), daemon=True)
        sampler.start()
        started = time.monotonic()
        try:
            code = subprocess.call(command)
        finally:
            wall = time.monotonic() - started
            time.sleep(2)  # processes the command left behind are reaped by their own parents
            libc.acct(None)
            stop.set()
            sampler.join()
        records = read_records(log)
    by_pid = {r.pid: r for r in records}
    groups: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0])
    for record in records:
        entry = groups[group(record, by_pid, commands)]
        entry[0] += record.cpu
        entry[1] += 1
    total = sum(r.cpu for r in records)
    print(f"exit status {code}, {wall:.1f} s wall, {len(records)} processes, {total:.0f} CPU-s")
    for name, (cpu, count) in sorted(groups.items(), key=lambda item: -item[1][0]):
        print(f"{cpu:8.1f} CPU-s {int(count):6d} processes  {name}")
    print("busiest processes:")
    for record in sorted(records, key=lambda r: -r.cpu)[:15]:
        line = commands.get(record.pid, record.comm).replace("\n", " ")
        print(f"{record.cpu:8.1f} CPU-s  {line[:120]}")
    if args.json:
        args.json.write_text(json.dumps({"wall": wall, "groups": groups, "records": [r._asdict() for r in records],
                                         "commands": {str(k): v for k, v in commands.items()}}))


if __name__ == "__main__":
    main()
