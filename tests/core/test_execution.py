"""Worker processes with a hard per-sample deadline."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading

import pytest

from grpo_rewards import Outcome, Reward, RewardError, WorkerPool


@pytest.fixture
def pool():
    pool = WorkerPool(workers=2)
    yield pool
    pool.close()


def test_a_sample_that_loops_forever_is_killed_and_the_others_return(plugins, pool):
    from grpo_rewards_fixture_good import sleepy

    outcomes = pool.map(sleepy, [("ab",), ("spin",), ("abcd",), ("sleep",), ("x",)], timeout=1.0)
    assert [o.status for o in outcomes] == ["ok", "timeout", "ok", "timeout", "ok"]
    assert [o.value for o in outcomes] == [2.0, None, 4.0, None, 1.0]
    assert outcomes[1].error == "exceeded its 1 s deadline"
    assert pool.stats["killed_timeout"] == 2


def test_the_pool_recovers_and_reuses_workers_across_batches(plugins, pool):
    from grpo_rewards_fixture_good import sleepy

    pool.map(sleepy, [("a",), ("b",), ("c",), ("d",)], timeout=5.0)
    pids = sorted(pool.pids)
    pool.map(sleepy, [("a",), ("b",), ("c",), ("d",)], timeout=5.0)
    assert sorted(pool.pids) == pids
    assert pool.stats["spawned"] == 2


def test_a_worker_that_dies_marks_its_sample_crashed_and_is_replaced(plugins, pool):
    from grpo_rewards_fixture_good import sleepy

    outcomes = pool.map(sleepy, [("a",), ("die",), ("abc",)], timeout=5.0, chunk_size=3)
    assert outcomes[0] == Outcome("ok", 1.0)
    assert outcomes[1].status == "crashed" and outcomes[1].error == "worker process died (exit code 3)"
    assert outcomes[2] == Outcome("ok", 3.0)
    assert pool.map(sleepy, [("ab",)], timeout=5.0) == [Outcome("ok", 2.0)]


def test_an_exception_in_a_worker_comes_back_as_an_error(plugins, pool):
    from grpo_rewards_fixture_good import sleepy

    assert pool.map(sleepy, [("raise",)], timeout=5.0) == [Outcome("error", None, "ValueError: bad sample")]


def test_a_closure_is_refused_with_a_clear_message(pool):
    offset = 1

    def closure(x):
        return x + offset

    with pytest.raises(TypeError, match="must be picklable"):
        pool.map(closure, [(1,)], timeout=5.0)


def test_a_function_defined_in_a_script_fails_with_a_clear_message(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(
        "from grpo_rewards import map_with_deadline\n"
        "def double(x):\n    return 2 * x\n"
        "print(map_with_deadline(double, [(1,)], timeout=30)[0].error)\n"
    )
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert "must be defined in an importable module, not in __main__" in out.stdout


def test_reward_with_deadline_gives_timeout_value_and_counts_it(registry):
    from grpo_rewards import get_reward

    reward = get_reward("fixture.sleepy", registry=registry)
    logged = {}
    values = reward(prompts=["p"] * 3, completions=["ab", "spin", "abc"], log_metric=logged.__setitem__)
    assert values == [2.0, None, 3.0]
    assert logged["outcomes/fixture.sleepy/timeout"] == 1.0


def test_reward_with_deadline_raises_on_a_crash_by_default(registry):
    from grpo_rewards import get_reward

    reward = get_reward("fixture.sleepy", registry=registry)
    with pytest.raises(RewardError, match=r"reward 'fixture.sleepy' on sample 1: crashed: worker process died"):
        reward(prompts=["p"] * 2, completions=["ab", "die"])


def test_workers_run_when_called_from_an_event_loop_thread(registry):
    """TRL runs async rewards on a daemon event-loop thread; the pool must work there too."""
    from grpo_rewards import get_reward

    reward = get_reward("fixture.sleepy", registry=registry)
    result = {}

    def run():
        async def call():
            return reward(prompts=["p"] * 3, completions=["a", "spin", "abc"])

        result["values"] = asyncio.run(call())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(60)
    assert result["values"] == [1.0, None, 3.0]


def test_worker_processes_are_not_forks_of_the_trainer(plugins, pool):
    from grpo_rewards_fixture_good import sleepy

    pool.map(sleepy, [("a",)], timeout=5.0)
    for pid in pool.pids:  # each a fresh interpreter running the supervisor (without site), which forks the worker
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            argv = fh.read().split(b"\0")
        assert argv[1] == b"-S" and argv[2].endswith(b"grpo_rewards/execution/containment.py")
        assert pid != os.getpid()


def test_in_process_reward_is_unaffected_by_workers():
    assert Reward(len_reward, metric="len")(prompts=["p"], completions=["abc"]) == [3.0]


def len_reward(text, **row):
    return float(len(text))


def test_a_hang_inside_a_chunk_is_pinned_on_the_right_sample(plugins, pool):
    """Results travel in batches; after a kill the unreported samples are re-run one by one."""
    from grpo_rewards_fixture_good import sleepy

    outcomes = pool.map(sleepy, [("a",), ("bb",), ("spin",), ("cccc",)], timeout=1.0, chunk_size=4)
    assert [(o.status, o.value) for o in outcomes] == [("ok", 1.0), ("ok", 2.0), ("timeout", None), ("ok", 4.0)]


@pytest.mark.parametrize("value", ["abc", "0", "-1"])
def test_a_bad_local_world_size_counts_this_process_as_the_only_rank_with_a_warning(monkeypatch, value):
    from grpo_rewards.execution import default_workers

    monkeypatch.delenv("LOCAL_WORLD_SIZE", raising=False)
    alone = default_workers()
    monkeypatch.setenv("LOCAL_WORLD_SIZE", value)
    with pytest.warns(RuntimeWarning, match=f"LOCAL_WORLD_SIZE='{value}' is not a whole number of processes"):
        assert default_workers() == alone


def test_local_world_size_shares_the_cpus_among_ranks(monkeypatch):
    from grpo_rewards.execution import default_workers

    cpus = len(os.sched_getaffinity(0))
    monkeypatch.setenv("LOCAL_WORLD_SIZE", str(cpus))
    assert default_workers() == 1


def test_a_pool_made_inside_a_worker_starts_one_worker_unless_told(monkeypatch):
    from grpo_rewards.execution import default_workers

    monkeypatch.delenv("LOCAL_WORLD_SIZE", raising=False)
    assert default_workers() == min(8, len(os.sched_getaffinity(0)))
    outer = WorkerPool(workers=1)
    try:  # what a reward scored in a worker (grpo-rewards check, the contract) gets for its own pool
        [outcome] = outer.map(default_workers, [()], timeout=60.0)
    finally:
        outer.close()
    assert (outcome.status, outcome.value) == ("ok", 1)


def test_a_reward_call_under_a_bad_local_world_size_scores_and_warns(registry, monkeypatch):
    from grpo_rewards import get_reward

    monkeypatch.setenv("LOCAL_WORLD_SIZE", "abc")
    reward = get_reward("fixture.sleepy", registry=registry)
    with pytest.warns(RuntimeWarning, match="LOCAL_WORLD_SIZE"):
        assert reward(prompts=["p"] * 2, completions=["ab", "abc"]) == [2.0, 3.0]


def test_a_negative_pool_size_is_refused():
    with pytest.raises(ValueError, match="workers must be 1 or more"):
        WorkerPool(workers=-3)


def test_a_sample_that_cannot_be_pickled_is_an_error_and_the_others_are_scored(plugins, pool):
    from grpo_rewards_fixture_good import sleepy

    outcomes = pool.map(sleepy, [("ab",), (threading.Lock(),), ("abcd",)], timeout=5.0, chunk_size=3)
    assert outcomes[0] == Outcome("ok", 2.0) and outcomes[2] == Outcome("ok", 4.0)
    assert outcomes[1] == Outcome("error", None, "cannot send the sample to a worker: cannot pickle '_thread.lock' object")


def test_chunks_whose_every_sample_cannot_be_pickled_are_errors_and_the_batch_goes_on():
    # a chunk of unpicklable samples is settled as it is packed and never sent: its worker is still idle, and the
    # batch went on waiting for a worker with nothing to report ("0 item(s) unaccounted for")
    lock = "cannot send the sample to a worker: cannot pickle '_thread.lock' object"
    pool = WorkerPool(workers=1)
    try:
        assert pool.map(len, [(threading.Lock(),)], timeout=30.0) == [Outcome("error", None, lock)]
        assert pool.map(len, [(threading.Lock(),), ("ab",), (threading.Lock(),)], timeout=30.0, chunk_size=1) == [
            Outcome("error", None, lock), Outcome("ok", 2), Outcome("error", None, lock)]
    finally:
        pool.close()


def test_a_batch_interrupted_in_the_caller_leaves_the_pool_ready_for_the_next(plugins, pool):
    """Ctrl-C while samples run: the workers holding them are killed, so no late result reaches the next batch."""
    import signal

    from grpo_rewards_fixture_good import sleepy

    class Interrupted(Exception):
        pass

    holding: list[int] = []

    def interrupt(signum, frame):
        # the workers holding a sample now (at least the one that ran the first batch; on a busy machine the
        # other may still be starting, holding nothing, and may stay)
        holding.extend(w.pid for w in pool._workers if w.state.chunk)
        raise Interrupted

    pool.map(sleepy, [("a",), ("b",)], timeout=5.0)
    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        with pytest.raises(Interrupted):
            pool.map(sleepy, [("sleep",), ("sleep",)], timeout=30.0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert holding and not set(holding) & set(pool.pids)
    assert not any(w.state.chunk for w in pool._workers)
    assert pool.map(sleepy, [("a",), ("bb",), ("ccc",)], timeout=5.0) == [Outcome("ok", 1.0), Outcome("ok", 2.0),
                                                                        Outcome("ok", 3.0)]


def test_workers_that_cannot_start_give_their_samples_up_as_crashed_instead_of_hanging(monkeypatch):
    from grpo_rewards.execution import pool as pool_module

    monkeypatch.setattr(pool_module, "_worker_command", lambda fd, parent: [sys.executable, "-c", "import sys; sys.exit(7)"])
    pool = WorkerPool(workers=2)
    try:
        outcomes = pool.map(divmod, [(7, 2), (9, 3)], timeout=5.0)
        assert outcomes == [Outcome("crashed", None, "a worker process exited before it was ready (exit code 7) "
                                    "3 times in a row (its error output is this process's stderr)")] * 2
        assert pool.stats["crashed"] == 3
    finally:
        pool.close()


@pytest.mark.parametrize("timeout", [0, -1.0, float("nan")])
def test_a_deadline_that_is_not_a_positive_number_is_refused(pool, timeout):
    with pytest.raises(ValueError, match="timeout must be a positive number of seconds or None"):
        pool.map(divmod, [(7, 2)], timeout=timeout)


LEAKY = '''import fractions


def patcher(text: str, **row) -> float:
    """Monkeypatches a class in the process it runs in."""
    fractions.Fraction.__str__ = lambda self: "junk"
    return 1.0


def prober(text: str, **row) -> float:
    """1.0 while Fraction prints as it should."""
    return float(str(fractions.Fraction(1, 2)) == "1/2")
'''


def test_rewards_never_share_a_worker_process_so_one_cannot_patch_what_another_runs(tmp_path):
    from grpo_rewards import load_reward_set
    from grpo_rewards.execution import get_pool

    (tmp_path / "leaky.py").write_text(LEAKY)
    options = {"timeout": 60, "workers": 1}
    rs = load_reward_set([{"use": f"{tmp_path / 'leaky.py'}:patcher", **options},
                          {"use": f"{tmp_path / 'leaky.py'}:prober", **options}])
    patcher, prober = rs.rewards
    assert patcher(prompts=["p"], completions=["a"]) == [1.0]
    assert prober(prompts=["p"], completions=["a"]) == [1.0]  # 0.0 in the patcher's worker
    patcher_pool, prober_pool = get_pool(1, patcher.pool_owner), get_pool(1, prober.pool_owner)
    assert patcher_pool is not prober_pool
    assert set(patcher_pool.worker_pids).isdisjoint(prober_pool.worker_pids)


def test_a_worker_whose_folder_is_removed_keeps_scoring(tmp_path, monkeypatch):
    # a pool started while the caller sat in a folder that is removed later (a test's tmp_path, a script's
    # temporary folder), the caller still in it: after each task the worker puts back what the task changed, and
    # the folder it runs in is gone; it stays where it is instead of dying between two samples
    start = tmp_path / "start"
    start.mkdir()
    monkeypatch.chdir(start)
    pool = WorkerPool(workers=1)
    try:
        assert pool.map(divmod, [(7, 2)], timeout=30.0) == [Outcome("ok", (3, 1))]
        start.rmdir()
        first = pool.pids
        assert pool.map(divmod, [(7, 2), (9, 3)], timeout=30.0) == [Outcome("ok", (3, 1)), Outcome("ok", (3, 0))]
        assert pool.pids == first
    finally:
        pool.close()


def test_items_run_in_the_callers_working_directory_of_each_call(tmp_path, monkeypatch):
    # as in-process: a reward reading a relative path reads it from where the caller is now, not from where the
    # caller was when the pool started; a task that moves elsewhere does not move the items after it
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    monkeypatch.chdir(first)
    pool = WorkerPool(workers=1)
    try:
        assert pool.map(os.getcwd, [()], timeout=30.0) == [Outcome("ok", str(first))]
        monkeypatch.chdir(second)
        assert pool.map(os.chdir, [(str(tmp_path),)], timeout=30.0) == [Outcome("ok", None)]
        assert pool.map(os.getcwd, [(), ()], timeout=30.0) == [Outcome("ok", str(second))] * 2
    finally:
        pool.close()
