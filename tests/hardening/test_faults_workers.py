"""Worker faults: a worker SIGKILLed from outside, a leaking worker, a sample that raises, crashes its
worker or sticks in one long C call, and the process holding the pool killed (its workers must follow).

Each test shows the batch completes with defined values, the failure is reported by name, and the
pool is healthy afterwards: the next batch works, the pool holds exactly ``size`` live workers, and
no child process is left a zombie.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import Counter

import hardening_workers as hw
import pytest
from hardening_proc import children, zombies

from grpo_rewards import RewardError, WorkerPool
from grpo_rewards.execution import get_pool


def assert_healthy(pool: WorkerPool) -> None:
    """The next batch works, ``size`` live workers, no zombie children of this process."""
    outcomes = pool.map(hw.slow_square, [(i, 0.0) for i in range(2 * pool.size)], timeout=60)
    assert [o.value for o in outcomes] == [i * i for i in range(2 * pool.size)]
    assert len(pool.pids) == pool.size
    live = dict(children())
    assert all(live.get(pid) not in (None, "Z") for pid in pool.pids), (pool.pids, live)
    assert zombies() == []


def test_worker_killed_mid_batch_is_replaced_and_every_sample_gets_a_value():
    pool = WorkerPool(workers=2)
    try:
        pool.map(hw.whoami, [(0,), (1,)], timeout=60)  # both workers started
        killed: list[int] = []

        def kill_one() -> None:
            time.sleep(0.5)
            killed.append(pool.pids[0])
            os.kill(killed[0], signal.SIGKILL)

        killer = threading.Thread(target=kill_one)
        killer.start()
        outcomes = pool.map(hw.slow_square, [(i, 0.1) for i in range(24)], timeout=30)
        killer.join()
        statuses = Counter(o.status for o in outcomes)
        assert set(statuses) <= {"ok", "crashed"} and statuses["crashed"] <= 1, statuses
        assert all(o.value == i * i for i, o in enumerate(outcomes) if o.status == "ok")
        assert pool.stats["crashed"] == 1
        assert killed[0] not in pool.pids
        assert killed[0] not in dict(children())  # reaped, not a zombie
        assert_healthy(pool)
    finally:
        pool.close()


def test_leaking_worker_is_recycled_after_max_tasks_and_its_memory_stays_bounded():
    leak_mb, max_tasks, n = 20, 4, 16
    pool = WorkerPool(workers=1, max_tasks_per_worker=max_tasks)
    try:
        outcomes = pool.map(hw.leak, [(leak_mb,)] * n, timeout=60, chunk_size=1)
        assert [o.status for o in outcomes] == ["ok"] * n
        pids = [o.value[0] for o in outcomes]
        rss = [o.value[1] for o in outcomes]
        assert len(set(pids)) == n // max_tasks
        assert [pids.count(p) for p in dict.fromkeys(pids)] == [max_tasks] * (n // max_tasks)
        assert pool.stats["recycled"] == n // max_tasks
        # one worker keeps at most max_tasks leaks; without recycling the last one would hold n of them
        leak_kib = leak_mb * 1_000_000 // 1024
        assert max(rss) < min(rss) + (max_tasks + 1) * leak_kib, rss
        assert all(pid not in dict(children()) for pid in set(pids))  # the recycled ones are gone
        assert_healthy(pool)
    finally:
        pool.close()


def test_sample_stuck_in_one_long_c_call_gets_timeout_value_and_the_others_are_scored():
    from grpo_rewards import Reward

    logged: dict[str, float] = {}
    reward = Reward(hw.length_unless_pow, metric="hardening.pow", timeout=1.0, workers=2, timeout_value=-1.0)
    values = reward(completions=["a", "bb", "POW", "cccc", "ddddd"], log_metric=logged.__setitem__)
    assert values == [1.0, 2.0, -1.0, 4.0, 5.0]
    assert reward.stats == Counter({"ok": 4, "timeout": 1})
    assert logged["outcomes/hardening.pow/timeout"] == 1.0
    assert_healthy(get_pool(2))


@pytest.mark.parametrize("timeout", [None, 30.0], ids=["in-process", "workers"])
def test_sample_that_raises_gets_error_value_with_on_error_none_and_others_are_scored(timeout):
    from grpo_rewards import Reward

    logged: dict[str, float] = {}
    reward = Reward(hw.length_unless_boom, metric="hardening.boom", timeout=timeout, workers=2, on_error="none",
                    error_value=-1.0)
    values = reward(completions=["a", [{"role": "assistant", "content": "bb"}], "xBOOMx", "cccc"],
                    log_metric=logged.__setitem__)
    assert values == [1.0, 2.0, -1.0, 4.0]
    assert reward.stats == Counter({"ok": 3, "error": 1})
    assert logged["outcomes/hardening.boom/error"] == 1.0
    if timeout:
        assert_healthy(get_pool(2))


@pytest.mark.parametrize("timeout", [None, 30.0], ids=["in-process", "workers"])
def test_sample_that_raises_is_a_reward_error_naming_reward_and_sample_with_on_error_raise(timeout):
    from grpo_rewards import Reward

    reward = Reward(hw.length_unless_boom, metric="hardening.boom", timeout=timeout, workers=2)
    with pytest.raises(RewardError) as caught:
        reward(completions=["a", "bb", "xBOOMx", "cccc"])
    assert caught.value.reward == "hardening.boom" and caught.value.index == 2
    assert "'hardening.boom' on sample 2" in str(caught.value) and "BOOM in the completion" in str(caught.value)
    if timeout:
        assert_healthy(get_pool(2))


def test_sample_that_kills_its_worker_gets_error_value_and_the_pool_recovers():
    from grpo_rewards import Reward

    reward = Reward(hw.crash_on_crash, metric="hardening.crash", timeout=30.0, workers=2, on_error="none")
    values = reward(completions=["a", "bb", "CRASH", "ccc", "dddd"])
    assert values == [1.0, 2.0, None, 3.0, 4.0]
    assert reward.stats == Counter({"ok": 4, "crashed": 1})
    assert_healthy(get_pool(2))


def test_sample_that_kills_its_worker_is_counted_in_the_logged_outcomes():
    from grpo_rewards import Reward

    logged: dict[str, float] = {}
    reward = Reward(hw.crash_on_crash, metric="hardening.crash", timeout=30.0, workers=2, on_error="none")
    reward(completions=["a", "CRASH", "ccc"], log_metric=logged.__setitem__)
    assert logged.get("outcomes/hardening.crash/crashed", 0.0) + logged.get("outcomes/hardening.crash/error", 0.0) == 1.0


def test_score_rows_reports_the_failing_row_by_reward_name_and_scores_the_others():
    from grpo_rewards import load_reward_set
    from grpo_rewards.plugin.manager import get_plugins
    from grpo_rewards.registry import load_registry
    from grpo_rewards.scoring import score_rows

    plugins = get_plugins(load_entry_points=False)
    plugins.add(hw, "hardening")
    reward_set = load_reward_set({"rewards": [{"use": "hardening.boom", "timeout": 30.0, "workers": 2},
                                              {"use": "hardening.slow"}]}, registry=load_registry(plugins))
    rows = [{"completion": c} for c in ["a", "bb", "BOOM!", "cccc"]]
    scores, counts, failures = score_rows(reward_set, rows, batch_size=4)
    assert [s["hardening.boom"] for s in scores] == [1.0, 2.0, None, 4.0]
    assert [s["hardening.slow"] for s in scores] == [1.0, 2.0, 5.0, 4.0]
    assert [(i, metric) for i, metric, _ in failures] == [(2, "hardening.boom")]
    assert "BOOM in the completion" in failures[0][2]
    assert counts["hardening.boom"]["error"] == 1
    assert_healthy(get_pool(2))


WARM_THEN_CHECK = """
import sys
from grpo_rewards_math.correctness import SymbolicCheck
check = SymbolicCheck()
check.warmup()
before = set(sys.modules)
assert check("x^2+2x+1", "(x+1)(x+1)") is True
print(sorted(m for m in set(sys.modules) - before if m.split(".")[0] in ("sympy", "mpmath")))
"""


def test_math_worker_warmup_imports_everything_the_first_symbolic_check_needs():
    import subprocess
    import sys

    pytest.importorskip("grpo_rewards_math")
    out = subprocess.run([sys.executable, "-c", WARM_THEN_CHECK], capture_output=True, text=True, timeout=120,
                         check=True).stdout.strip()
    assert out == "[]", out[:300]


ORPHAN_PARENT = """
import sys, time
import hardening_workers as hw
from grpo_rewards import WorkerPool
pool = WorkerPool(workers=2)
pool.map(hw.whoami, [(0,), (1,)], timeout=60)
print(" ".join(map(str, pool.pids)), flush=True)
if {busy!r}:
    pool.map(hw.slow_square, [(1, 60.0), (2, 60.0)], timeout=300)
time.sleep(300)
"""


def _gone(pid: int) -> bool:
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


def _kill_parent_and_wait(busy: bool) -> tuple[list[int], list[int]]:
    """SIGKILL a process holding a pool (idle or mid-task); (worker pids, those still alive after 5 s)."""
    import subprocess
    import sys

    code = ORPHAN_PARENT.format(busy=busy)
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    pids: list[int] = []
    try:
        pids = [int(p) for p in parent.stdout.readline().split()]
        time.sleep(1.0)  # the slow tasks have started
        parent.kill()
        parent.wait(timeout=30)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not all(_gone(p) for p in pids):
            time.sleep(0.1)
        return pids, [p for p in pids if not _gone(p)]
    finally:
        parent.stdout.close()
        for pid in pids:  # workers this test started, left behind
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)


def test_idle_workers_exit_when_their_process_is_killed():
    pids, alive = _kill_parent_and_wait(busy=False)
    assert len(pids) == 2 and alive == []


def test_busy_workers_exit_when_their_process_is_killed():
    pids, alive = _kill_parent_and_wait(busy=True)
    assert len(pids) == 2 and alive == []


def test_workers_started_from_a_thread_that_ended_stay_alive():
    pool = WorkerPool(workers=1)
    try:
        box: list = []
        spawner = threading.Thread(target=lambda: box.extend(pool.map(hw.whoami, [(0,)], timeout=60)))
        spawner.start()
        spawner.join()
        pid = box[0].value[0]
        time.sleep(0.5)
        assert pool.worker_pids == [pid] and not _gone(pid), "the worker died with the thread that started it"
        assert pool.map(hw.whoami, [(1,)], timeout=60)[0].value == (pid, 1)
        assert pool.stats["spawned"] == 1
    finally:
        pool.close()
