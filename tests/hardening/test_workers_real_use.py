"""The worker pool in real use: a fork of the process holding it, items close to their deadline, and more
distinct functions than a worker caches.

Each case once broke: a ``datasets.map(num_proc=2)`` after a reward call hung (the forked children shared
the parent's worker sockets and had no spawner thread); one worker running 0.6 s items under a 1 s deadline
killed itself every other item and ran samples twice (a result waited for the next item to finish); after
65 functions a worker dropped its cache while the pool still believed it held them.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import hardening_workers as hw
import pytest

from grpo_rewards import Outcome, WorkerPool

FORK_SCRIPT = """
import json, sys, threading
import datasets
import hardening_workers as hw
from grpo_rewards import Reward
from grpo_rewards.execution import get_pool

datasets.disable_progress_bars()
reward = Reward(hw.length_unless_boom, metric="hardening.fork", timeout=30.0, workers=2)
assert reward(completions=["ab", "c"]) == [2.0, 1.0]
pool = get_pool(2, reward.pool_owner)  # the reward's own workers
before = sorted(pool.pids)
errors, rounds, stop = [], [0], threading.Event()

def score_in_parent():  # the parent keeps scoring while the children fork and score
    texts = ["x" * (i % 9) for i in range(64)]
    while not stop.is_set():
        try:
            assert reward(completions=texts) == [float(len(t)) for t in texts]
        except BaseException as exc:
            errors.append(repr(exc))
            return
        rounds[0] += 1

thread = threading.Thread(target=score_in_parent)
thread.start()
data = datasets.Dataset.from_dict({"text": ["y" * (i % 13) for i in range(400)]})
out = data.map(hw.score_texts, batched=True, batch_size=20, num_proc=2, fn_kwargs={"reward": reward})
stop.set()
thread.join()
print(json.dumps({"pid": __import__("os").getpid(), "before": before, "after": sorted(pool.pids),
                  "stats": pool.stats, "errors": errors, "rounds": rounds[0], "score": list(out["score"]),
                  "text": list(out["text"]), "child": list(out["pid"]), "child_pool": list(out["pool"])}))
"""


PLAIN_FORK_SCRIPT = """
import json, os, sys
import hardening_workers as hw
from grpo_rewards.execution import get_pool

pool = get_pool(2)
assert [o.value for o in pool.map(hw.whoami, [(0,), (1,)], timeout=60)][0][1] == 0
before = sorted(pool.pids)
child = os.fork()
if child == 0:  # scores, then exits normally: its atexit hook closes its own pool only
    out = [o.value[1] for o in get_pool(2).map(hw.whoami, [(i,) for i in range(8)], timeout=60)]
    with open({result!r}, "w") as fh:
        json.dump({{"values": out, "pool": sorted(get_pool(2).pids)}}, fh)
    sys.exit(0)
_, status = os.waitpid(child, 0)
after = [o.value for o in pool.map(hw.whoami, [(i,) for i in range(8)], timeout=60)]
print(json.dumps({{"status": status, "before": before, "after": sorted(pool.pids), "stats": pool.stats,
                  "values": [v[1] for v in after], "served_by": sorted({{v[0] for v in after}}),
                  "workers": sorted(pool.worker_pids)}}))
"""


def _run_script(code: str) -> dict:
    """Run ``code`` in a fresh interpreter (its own session, killed whole after 120 s); its last line as JSON."""
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=120)  # a hang fails here instead of hanging the suite
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("the script hung")
    assert proc.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def test_datasets_map_with_two_processes_after_a_reward_call_scores_every_row_in_fresh_pools():
    pytest.importorskip("datasets")
    got = _run_script(FORK_SCRIPT)
    assert got["score"] == [float(len(t)) for t in got["text"]]
    assert got["errors"] == [] and got["rounds"] >= 1
    # the parent's workers were neither closed nor killed from the children, and never crashed
    assert got["after"] == got["before"] and len(got["before"]) == 2
    assert got["stats"] == {"spawned": 2, "killed_timeout": 0, "crashed": 0, "recycled": 0}
    children = set(got["child"])
    assert len(children) == 2 and got["pid"] not in children
    child_pools = {pid: [int(p) for p in pool.split()] for pid, pool in zip(got["child"], got["child_pool"])}
    for workers in child_pools.values():  # each child started its own two workers
        assert len(workers) == 2 and not set(workers) & set(got["before"])
    assert not set(child_pools[min(children)]) & set(child_pools[max(children)])
    leftover = [p for ws in child_pools.values() for p in ws if _alive(p)]
    deadline = time.monotonic() + 5
    while leftover and time.monotonic() < deadline:  # the children's workers follow their processes out
        time.sleep(0.1)
        leftover = [p for p in leftover if _alive(p)]
    assert leftover == []


def test_a_forked_child_that_exits_normally_leaves_the_parents_workers_running(tmp_path):
    result = tmp_path / "child.json"
    got = _run_script(PLAIN_FORK_SCRIPT.format(result=str(result)))
    child = json.loads(result.read_text())
    assert got["status"] == 0 and child["values"] == list(range(8))
    assert len(child["pool"]) == 2 and not set(child["pool"]) & set(got["before"])
    assert got["after"] == got["before"] and set(got["served_by"]) <= set(got["workers"])
    assert got["values"] == list(range(8))
    assert got["stats"] == {"spawned": 2, "killed_timeout": 0, "crashed": 0, "recycled": 0}


@pytest.fixture
def pool():
    """One worker, so that the items of a chunk run one after the other in it."""
    pool = WorkerPool(workers=1)
    yield pool
    pool.close()


class RunLog:
    """A file each run of ``hardening_workers.logged_sleep`` appends its item to; ``items`` builds the calls."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def items(self, *specs: tuple) -> list[tuple]:
        return [(str(self.path), i, *spec) for i, spec in enumerate(specs)]

    def runs(self) -> list[int]:
        return sorted(int(line) for line in self.path.read_text().split())


@pytest.fixture
def log(tmp_path: Path) -> RunLog:
    return RunLog(tmp_path / "runs.txt")


def test_items_just_under_the_deadline_are_neither_killed_nor_run_twice(pool, log):
    # one chunk of five running three times the deadline in all: each item's deadline counts from the previous one's end
    outcomes = pool.map(hw.logged_sleep, log.items(*[(0.6,)] * 5), timeout=1.0, chunk_size=5)
    assert outcomes == [Outcome("ok", i) for i in range(5)]
    assert pool.stats == {"spawned": 1, "killed_timeout": 0, "crashed": 0, "recycled": 0}
    assert log.runs() == list(range(5))


def test_an_item_over_the_deadline_is_killed_once_and_nothing_runs_twice(pool, log):
    """The worker names an item that runs long, so the pool pins the overrun on it without re-running the chunk."""
    outcomes = pool.map(hw.logged_sleep, log.items((0.6,), (0.6,), (1.6,), (0.6,)), timeout=1.0, chunk_size=4)
    assert outcomes == [Outcome("ok", 0), Outcome("ok", 1), Outcome("timeout", None, "exceeded its 1 s deadline"),
                        Outcome("ok", 3)]
    assert pool.stats["killed_timeout"] == 1
    assert log.runs() == [0, 1, 2, 3]


def test_a_crash_after_an_item_ran_a_while_is_pinned_on_it_without_running_anything_twice(pool, log):
    outcomes = pool.map(hw.logged_sleep, log.items((0.0,), (0.0,), (0.5, "exit"), (0.0,)), timeout=30.0, chunk_size=4)
    assert outcomes == [Outcome("ok", 0), Outcome("ok", 1), Outcome("crashed", None, "worker process died (exit code 9)"),
                        Outcome("ok", 3)]
    assert pool.stats["crashed"] == 1
    assert log.runs() == [0, 1, 2, 3]


def test_results_held_back_while_a_long_item_runs_arrive_once_each(pool, log):
    """The watchdog sends the fast items' results while the slow one runs; the rest follow as usual."""
    outcomes = pool.map(hw.logged_sleep, log.items(*[(0.0,)] * 5, (0.5,), *[(0.0,)] * 5), timeout=30.0, chunk_size=11)
    assert outcomes == [Outcome("ok", i) for i in range(11)]
    assert log.runs() == list(range(11))


def test_an_overrun_the_worker_cannot_name_reruns_the_unreported_items_alone_to_find_the_culprit(pool, log):
    """One C call holding the GIL keeps the worker's watchdog from naming the item: the unreported items run
    again one at a time, so the culprit is timed out twice and the items after it run once."""
    outcomes = pool.map(hw.logged_sleep, log.items((0.0,), (0.0, "hold_gil"), (0.0,)), timeout=1.0, chunk_size=3)
    assert outcomes[1:] == [Outcome("timeout", None, "exceeded its 1 s deadline"), Outcome("ok", 2)]
    assert pool.stats["killed_timeout"] == 2
    runs = log.runs()  # item 0 runs again only if its result was still waiting (it took under 2 ms)
    assert runs.count(1) == 2 and runs.count(2) == 1 and runs.count(0) in (1, 2)


def test_a_worker_and_its_pool_agree_on_the_cached_functions_past_the_cache_size(pool):
    functions = [hw.Plus(k) for k in range(70)]
    for _ in range(2):  # the second round needs functions the worker dropped, and must resend them
        assert [pool.map(f, [(1,)], timeout=60)[0] for f in functions] == [Outcome("ok", 1 + k) for k in range(70)]
    assert pool.stats["spawned"] == 1
