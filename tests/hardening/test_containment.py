"""Every process a reward starts ends with it; a worker's memory is capped; a task leaves its worker as it found it.

The scorers (:mod:`containment_scorers`) start a plain child and a grandchild that calls ``setsid`` and
double-forks, then return, overrun their deadline or crash their worker; in each case neither may
survive. The memory cap turns a 3 GB allocation into the ``memory`` label while the process holding
the pool stays small and keeps scoring.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import containment_scorers as cs
import pytest

from grpo_rewards import Reward, RewardOptions, WorkerPool
from grpo_rewards.execution import containment, memory

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux process containment")


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def _survivors(pid_file: Path, patience: float = 10.0) -> list[int]:
    """The escaped processes still alive once ``patience`` seconds have passed (killed afterwards, for hygiene)."""
    pids = [int(p.read_text()) for p in (pid_file, Path(f"{pid_file}.child"))]
    give_up = time.monotonic() + patience
    while any(_alive(p) for p in pids) and time.monotonic() < give_up:
        time.sleep(0.05)
    alive = [p for p in pids if _alive(p)]
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    return alive


@pytest.fixture
def pool():
    pool = WorkerPool(workers=1)
    yield pool
    pool.close()


@pytest.mark.parametrize(("then", "status"), [("return", "ok"), ("overrun", "timeout"), ("crash", "crashed")])
def test_a_setsid_double_forked_grandchild_does_not_survive_its_task(pool, tmp_path, then, status):
    pid_file = tmp_path / "grandchild.pid"
    [outcome] = pool.map(cs.escape, [(str(pid_file), then)], timeout=5.0)
    assert outcome.status == status
    assert _survivors(pid_file) == []
    assert [o.value for o in pool.map(cs.allocate, [(1,)], timeout=30)] == [1_000_000]


HOLDER = """
import containment_scorers as cs
from grpo_rewards import WorkerPool
WorkerPool(workers=1).map(cs.escape, [({pid_file!r}, "overrun")], timeout=600)
"""


def test_nothing_survives_when_the_process_holding_the_pool_is_killed_mid_task(tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER.format(pid_file=str(pid_file))])
    try:
        give_up = time.monotonic() + 120
        while not pid_file.exists() and time.monotonic() < give_up:
            time.sleep(0.05)
        assert pid_file.exists()
    finally:
        holder.kill()
        holder.wait()
    assert _survivors(pid_file) == []


def test_pool_close_leaves_no_process_of_a_task_behind(tmp_path):
    pool = WorkerPool(workers=2)
    pid_file = tmp_path / "grandchild.pid"
    pool.map(cs.escape, [(str(pid_file), "return")], timeout=30)
    workers = list(pool.pids)
    pool.close()
    assert _survivors(pid_file) == []
    assert not any(_alive(pid) for pid in workers)


def test_a_helper_the_reward_keeps_outlives_its_task_and_dies_with_the_pool(tmp_path):
    """keep_across_tasks spares one named child (and only it) when the task ends; the pool's close still kills it."""
    pool = WorkerPool(workers=1)
    pid_file = tmp_path / "helpers.pid"
    try:
        [started] = pool.map(cs.start_helpers, [(str(pid_file),)], timeout=30)
        kept, other = started.value
        [after] = pool.map(cs.alive_children, [(0,)], timeout=30)
        assert after.value == [kept]  # the other child was killed when the first task ended
        assert _alive(kept) and not _alive(other)
        [refused] = pool.map(cs.keep_a_stranger, [(os.getpid(),)], timeout=30)
        assert refused.value == (f"process {os.getpid()} is not a child of this process: only a reward's own helper "
                                 "may be kept")
    finally:
        pool.close()
    give_up = time.monotonic() + 10
    while _alive(kept) and time.monotonic() < give_up:
        time.sleep(0.05)
    assert not _alive(kept)


def test_a_pool_made_inside_a_worker_keeps_its_workers_across_tasks_and_they_still_contain_theirs(pool, tmp_path):
    """A reward called by a reward run in workers (``grpo-rewards check``) makes a pool inside the worker: its
    workers outlive the task that made them (their imports and caches stay warm), and what each of their own
    tasks leaves is still killed."""
    pid_file = str(tmp_path / "grandchild.pid")
    first, second = (pool.map(cs.nested_task, [(pid_file,)], timeout=60)[0] for _ in range(2))
    assert first.status == second.status == "ok"
    (nested, grandchild), (nested_again, grandchild_again) = first.value, second.value
    assert nested == nested_again and nested > 0 and _alive(nested)  # the same nested worker served both tasks
    assert grandchild > 0 and grandchild_again > 0 and grandchild != grandchild_again
    assert _survivors(Path(pid_file)) == []  # the nested worker killed what its task left
    pool.close()
    give_up = time.monotonic() + 10
    while _alive(nested) and time.monotonic() < give_up:
        time.sleep(0.05)
    assert not _alive(nested)  # and it dies with the pool that holds it


def test_linux_gives_the_workers_a_subreaper():
    assert containment.mechanism() == "subreaper"


def test_a_3_gb_allocation_past_the_cap_is_labelled_memory_and_the_parent_stays_healthy():
    reward = Reward(cs.allocate_for_text, metric="hardening.allocate", timeout=60.0, workers=1,
                    options=RewardOptions(max_memory="1 GiB", on_error="raise"))
    before = _rss_kib()  # (what earlier tests left in this test process: ~1 GB in one CI run)
    values = reward(completions=["3000", "1", "3000"])
    assert values == [None, 1.0, None]
    assert reward.stats["memory"] == 2 and reward.stats["ok"] == 1
    assert _rss_kib() - before < 1_000_000  # the parent never held the allocation
    assert reward(completions=["2", "3"]) == [2.0, 3.0]


def _rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_without_a_cap_the_same_allocation_succeeds(pool):
    assert [o.status for o in pool.map(cs.allocate, [(1500,)], timeout=60, max_memory=0)] == ["ok"]


def test_the_default_cap_is_the_smaller_of_4_gib_and_memory_over_workers_plus_one():
    total = memory.machine_memory()
    assert memory.default_max_memory(3) == min(4 << 30, total // 4)
    assert memory.default_max_memory(1, total=6 << 30) == 3 << 30
    assert memory.default_max_memory(1, total=64 << 30) == 4 << 30


def test_a_pool_reads_the_machine_memory_for_its_default_cap_once(pool):
    assert [o.status for o in pool.map(cs.allocate, [(10,)], timeout=60)] == ["ok"]
    reads = memory.machine_memory.cache_info().misses
    assert reads == 1  # once in this process, whatever ran before
    assert [o.status for o in pool.map(cs.allocate, [(10,)], timeout=60)] == ["ok"]
    assert memory.machine_memory.cache_info().misses == reads


def test_max_memory_is_an_option_checked_like_the_others():
    assert RewardOptions(max_memory="512 MiB").max_memory == 512 << 20
    with pytest.raises(ValueError, match="max_memory must be a number of bytes >= 0 or a size"):
        RewardOptions(max_memory="a lot")
    assert (RewardOptions(max_memory=0).max_memory, RewardOptions(max_memory="64 MiB").max_memory) == (0, 64 << 20)


def test_a_memory_cap_no_worker_can_run_under_is_refused_with_the_unit_it_lacks():
    # before: max_memory: 512 (meant as MB; a number is bytes) was taken, and every sample failed for memory
    with pytest.raises(ValueError) as info:
        RewardOptions(max_memory=512)
    assert str(info.value) == ("max_memory 512 is 512 bytes, below what a worker needs to run Python (64 MiB): every "
                               "sample would fail for memory; a number is bytes: write '512 MiB' or '2 GiB', or 0 for "
                               "no cap")
    with pytest.raises(ValueError, match=r"max_memory '1 KB' is 1,000 bytes, .*memory; give at least 64 MiB, or 0 for no cap$"):
        RewardOptions(max_memory="1 KB")


@pytest.mark.parametrize(("change", "expected"), [
    ("cwd", {"cwd": os.getcwd()}),
    ("environ", {"leak": None, "path": True}),
    ("signals", {"sigterm": str(signal.SIG_DFL), "blocked": [], "alarm": 0.0}),
])
def test_a_task_that_changes_its_worker_leaves_it_as_it_found_it(pool, change, expected):
    before = pool.map(cs.look_at_worker, [(0,)], timeout=30)[0].value
    outcomes = pool.map(cs.change_worker, [(change,)], timeout=30)
    assert outcomes[0].value == change
    after = pool.map(cs.look_at_worker, [(0,)], timeout=30)[0].value
    assert {key: after[key] for key in expected} == expected
    assert after == before


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_supervisor_told_to_stop_mid_task_takes_the_whole_tree_with_it(pool, tmp_path, sig):
    import threading

    pid_file = tmp_path / "grandchild.pid"
    box: list = []
    runner = threading.Thread(target=lambda: box.extend(pool.map(cs.escape, [(str(pid_file), "overrun")], timeout=600)))
    runner.start()
    give_up = time.monotonic() + 120
    while not pid_file.exists() and time.monotonic() < give_up:
        time.sleep(0.05)
    os.kill(pool.pids[0], sig)  # a hang-up of the terminal, or someone else's kill
    runner.join(60)
    assert [o.status for o in box] == ["crashed"]
    assert _survivors(pid_file) == []
