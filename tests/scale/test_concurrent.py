"""The async form of every reward: the same values, labels, metrics and logged columns as the synchronous
call; run concurrently by an event loop; picklable, and right under TRL's experimental async trainer."""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import pickle
import threading
from collections import Counter
from typing import Any

import pytest
from scale_batches import FIRST_PARTY_REWARDS, batch_for, params_for

from grpo_rewards import ConcurrentReward, Reward, get_reward, load_reward_set
from grpo_rewards.concurrent import is_async, trl_gathers_async_rewards


class Recorder:
    """Stands in for TRL's ``log_metric`` and ``log_extra``; notes the thread of every call."""

    def __init__(self) -> None:
        self.metrics: dict[str, list[float]] = {}
        self.extra: dict[str, list[Any]] = {}
        self.threads: set[int] = set()

    def log_metric(self, name: str, value: float) -> None:
        self.threads.add(threading.get_ident())
        self.metrics.setdefault(name, []).append(value)

    def log_extra(self, column: str, values: list[Any]) -> None:
        self.threads.add(threading.get_ident())
        self.extra.setdefault(column, []).extend(values)

    def logged(self) -> tuple[dict[str, Any], dict[str, list[Any]]]:
        """Every metric (a timing or a judge's latency by its name and count only: its value is a
        measurement) and column."""
        metrics = {k: (len(v) if k.startswith(("timing/", "judge_latency/")) else v) for k, v in self.metrics.items()}
        return metrics, self.extra


def _kwargs(log: Recorder, columns: dict[str, Any]) -> dict[str, Any]:
    return {"log_metric": log.log_metric, "log_extra": log.log_extra, "trainer_state": None, **columns}


@pytest.mark.parametrize("name", FIRST_PARTY_REWARDS)
def test_the_async_form_of_a_first_party_reward_gives_the_synchronous_values_labels_and_logging(name):
    prompts, completions, columns = batch_for(name)
    params = params_for(name)
    sync, concurrent = get_reward(name, **params), ConcurrentReward(get_reward(name, **params))
    sync_log, async_log = Recorder(), Recorder()
    expected = sync(prompts=prompts, completions=completions, **_kwargs(sync_log, columns))

    async def main() -> tuple[list[float | None], int]:
        values = await concurrent(prompts=prompts, completions=completions, **_kwargs(async_log, columns))
        return values, threading.get_ident()

    values, loop_thread = asyncio.run(main())
    assert values == expected
    assert Counter(concurrent.reward.stats) == Counter(sync.stats)
    assert async_log.logged() == sync_log.logged()
    assert async_log.threads == {loop_thread}  # TRL's callbacks are called on its event loop's thread
    assert concurrent.__name__ == sync.__name__ and is_async(concurrent) and not is_async(sync)


class Meet:
    """A scorer that returns only once ``parties`` calls are inside it at the same time (else it times out)."""

    def __init__(self, barrier: threading.Barrier) -> None:
        self.barrier = barrier

    def __call__(self, text: str, **row: Any) -> float:
        self.barrier.wait()
        return float(len(text))


def test_an_event_loop_runs_the_async_forms_of_several_rewards_at_the_same_time():
    barrier = threading.Barrier(3, timeout=60)  # one after another, the first would wait alone and time out
    rewards = [ConcurrentReward(Reward(Meet(barrier), metric=f"meet{i}")) for i in range(3)]

    async def main() -> list[Any]:
        return await asyncio.gather(*[r(prompts=["p"], completions=["abc"]) for r in rewards])

    assert asyncio.run(main()) == [[3.0], [3.0], [3.0]]


def test_a_reward_read_through_inputs_is_computed_once_when_both_run_concurrently():
    rs = load_reward_set([{"use": "math.accuracy", "as": "correct"},
                          {"use": "length.cosine", "inputs": {"correct": "correct"}}], concurrent=True)
    prompts = ["p"] * 4
    completions = ["\\boxed{4}", "\\boxed{5}", "so \\boxed{4}", "no"]
    ids = [[1] * len(c) for c in completions]
    log = Recorder()

    async def main() -> list[Any]:
        return await asyncio.gather(*[f(prompts=prompts, completions=completions, completion_ids=ids,
                                        solution=["4"] * 4, log_metric=log.log_metric, log_extra=log.log_extra)
                                      for f in rs.reward_funcs])

    correct, cosine = asyncio.run(main())
    assert correct == [1.0, 0.0, 1.0, 0.0]
    assert sum(rs.rewards[0].stats.values()) == 4  # four samples scored once, not twice
    assert len(log.metrics["timing/correct"]) == 1
    sync = load_reward_set([{"use": "math.accuracy", "as": "correct"},
                            {"use": "length.cosine", "inputs": {"correct": "correct"}}])
    assert cosine == sync.rewards[1](prompts=prompts, completions=completions, completion_ids=ids, solution=["4"] * 4)


def test_a_set_file_says_concurrent_and_the_caller_may_override_it(tmp_path):
    path = tmp_path / "set.yaml"
    path.write_text("concurrent: true\nrewards:\n  - use: length.target\n  - use: format.think\n")
    assert all(isinstance(f, ConcurrentReward) for f in load_reward_set(path).reward_funcs)
    assert all(isinstance(f, Reward) for f in load_reward_set(path, concurrent=False).reward_funcs)
    plain = load_reward_set([{"use": "length.target"}])
    assert plain.concurrent is None and isinstance(plain.reward_funcs[0], Reward)


def test_the_installed_trl_awaits_an_instance_with_an_async_call():
    from trl.trainer.utils import is_async_callable

    assert trl_gathers_async_rewards() is True
    assert is_async_callable(ConcurrentReward(get_reward("length.target")))


def test_an_error_in_the_reward_reaches_the_caller_of_the_async_form():
    from grpo_rewards.errors import RewardError

    reward = ConcurrentReward(get_reward("format.regex", pattern="x"))
    with pytest.raises(RewardError, match="called without completions"):
        asyncio.run(reward(prompts=["p"]))


def test_the_async_forms_survive_pickling_and_score_the_same_in_trls_async_trainer_child_process():
    pytest.importorskip("trl.experimental.async_grpo.async_rollout_worker")
    from async_grpo_child import score_group

    rs = load_reward_set([{"use": "math.accuracy"}, {"use": "format.think_answer"},
                          {"use": "length.target", "with": {"target": 10, "unit": "chars"}}], concurrent=True)
    prompts, completions, columns = batch_for("math.accuracy")
    columns = {k: v for k, v in columns.items() if k != "completion_ids"}
    copies = pickle.loads(pickle.dumps(rs.reward_funcs))
    assert [f.__name__ for f in copies] == rs.metrics
    expected = {f"rewards/{r.__name__}": [math.nan if v is None else v for v in r(prompts=prompts,
                                                                                 completions=completions, **columns)]
                for r in rs.rewards}
    with multiprocessing.get_context("spawn").Pool(1) as pool:  # TRL's rollout worker is a spawned process
        got = pool.apply(score_group, (rs.reward_funcs, prompts, completions, columns))
    assert got.keys() == expected.keys()
    for key in expected:
        assert [("nan" if math.isnan(v) else v) for v in got[key]] == [("nan" if math.isnan(v) else v)
                                                                       for v in expected[key]], key


def test_two_rewards_in_worker_processes_run_their_samples_at_the_same_time(tmp_path):
    import scale_scorers

    # each reward's sample waits, in a worker process, for the other's: taking turns in one pool, the
    # first would wait a minute alone and score 0.0
    first = ConcurrentReward(Reward(scale_scorers.meet, metric="first", timeout=120.0, workers=1))
    second = ConcurrentReward(Reward(scale_scorers.meet, metric="second", timeout=120.0, workers=1))

    async def main() -> list[Any]:
        return await asyncio.gather(first(prompts=["p"], completions=["a"], marker_dir=[str(tmp_path)]),
                                    second(prompts=["p"], completions=["b"], marker_dir=[str(tmp_path)]))

    assert asyncio.run(main()) == [[1.0], [1.0]]
