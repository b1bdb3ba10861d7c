"""The Ray backend on a real local Ray cluster (2 CPUs), inside a private network namespace.

Every first-party per-sample reward gives on Ray exactly the values and labels it gives in the
local pool; deadlines cancel the task and kill its worker; a killed worker is ``crashed`` for its
sample only; the error policy and its messages are the local pool's.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from typing import Any

import pytest
import scale_scorers
from scale_batches import PER_SAMPLE, REGISTRY, batch_for, params_for
from scale_netns import alive

from grpo_rewards import Reward, RewardOptions, get_reward
from grpo_rewards.errors import RewardError

RAY = {"backend": "ray"}


class Recorder:
    """Stands in for TRL's ``log_metric`` and ``log_extra``, keeping what they were given."""

    def __init__(self) -> None:
        self.metrics: dict[str, list[float]] = {}
        self.extra: dict[str, list[Any]] = {}

    def log_metric(self, name: str, value: float) -> None:
        self.metrics.setdefault(name, []).append(value)

    def log_extra(self, column: str, values: list[Any]) -> None:
        self.extra.setdefault(column, []).extend(values)

    def counts(self) -> dict[str, list[float]]:
        return {k: v for k, v in self.metrics.items() if not k.startswith("timing/")}


def _score(reward: Reward, prompts: list[Any], completions: list[Any], columns: dict[str, Any]) -> tuple[Any, ...]:
    log = Recorder()
    values = reward(prompts=prompts, completions=completions, log_metric=log.log_metric, log_extra=log.log_extra,
                    **columns)
    return values, Counter(reward.stats), log.counts(), log.extra


@pytest.mark.parametrize("name", PER_SAMPLE)
def test_a_first_party_reward_gives_on_ray_the_values_and_labels_of_the_local_pool(ray_start, name):
    prompts, completions, columns = batch_for(name)
    params = params_for(name)
    # a deadline long enough that no sample meets it on a busy machine: the same on both backends
    # one local worker: the reference needs a worker process, not several (each a start-up of ~0.2 CPU-s)
    local = get_reward(name, options={"timeout": 60.0, "workers": 1}, **params)
    remote = get_reward(name, options={"timeout": 60.0, "execution": RAY}, **params)
    on_ray = _score(remote, prompts, completions, columns)
    in_pool = _score(local, prompts, completions, columns)
    assert on_ray == in_pool
    assert REGISTRY.rewards[name].form == "sample" and len(on_ray[0]) == len(completions)


def test_a_reward_without_a_timeout_still_runs_every_sample_on_ray(ray_start):
    reward = Reward(scale_scorers.in_ray_worker, metric="where", execution=RAY)
    assert reward(prompts=["p"] * 3, completions=["a", "b", "c"]) == [1.0, 1.0, 1.0]
    assert Reward(scale_scorers.in_ray_worker, metric="here")(prompts=["p"], completions=["a"]) == [0.0]


def test_results_come_back_in_the_order_of_the_batch_when_tasks_finish_out_of_order(ray_start):
    texts = ["sleep:1.5", "a", "sleep:0.8", "bb", "ccc", "sleep:0.3", "dddd"]
    reward = Reward(scale_scorers.sleepy, metric="sleepy", execution=RAY)
    assert reward(prompts=["p"] * len(texts), completions=texts) == [float(len(t)) for t in texts]


def test_an_item_past_its_deadline_is_cancelled_and_the_worker_running_it_is_killed(ray_start, tmp_path):
    texts = ["a", "stuck", "bbb"]
    reward = Reward(scale_scorers.stuck, metric="stuck", timeout=3.0, timeout_value=0.0, execution=RAY)
    values = reward(prompts=["p"] * 3, completions=texts, marker_dir=[str(tmp_path)] * 3)
    assert values == [1.0, 0.0, 3.0]
    assert reward.stats == Counter({"ok": 2, "timeout": 1})
    (pid_file,) = tmp_path.glob("*.pid")
    pid = int(pid_file.read_text())
    for _ in range(200):  # the worker is killed by Ray's force-cancel; give it a moment to be reaped
        if not alive(pid):
            break
        time.sleep(0.05)
    assert not alive(pid), f"the Ray worker {pid} that ran the stuck sample is still alive"


def test_a_killed_ray_worker_gives_crashed_for_its_sample_and_the_others_are_scored(ray_start):
    texts = ["a", "die", "ccc", "dd"]
    reward = Reward(scale_scorers.dies, metric="dies", on_error="none", error_value=-1.0, execution=RAY)
    assert reward(prompts=["p"] * 4, completions=texts) == [1.0, -1.0, 3.0, 2.0]
    assert reward.stats == Counter({"ok": 3, "crashed": 1})


def test_a_killed_ray_worker_under_on_error_raise_names_the_sample(ray_start):
    reward = Reward(scale_scorers.dies, metric="dies", execution=RAY)
    with pytest.raises(RewardError, match=r"reward 'dies' on sample 1: crashed: "):
        reward(prompts=["p"] * 2, completions=["a", "die"])


@pytest.mark.parametrize("on_error", ["raise", "none"])
def test_a_scorer_that_raises_follows_the_error_policy_with_the_local_pools_message(ray_start, on_error):
    def run(execution: dict[str, Any]) -> Any:
        reward = Reward(scale_scorers.raises, metric="raises", options=RewardOptions(
            timeout=30.0, on_error=on_error, error_value=0.5, execution=execution))
        try:
            return reward(prompts=["p"] * 3, completions=["a", "boom", "ccc"]), Counter(reward.stats)
        except RewardError as exc:
            return str(exc)

    on_ray, in_pool = run(RAY), run({"backend": "local"})
    assert on_ray == in_pool
    if on_error == "raise":
        assert on_ray == "reward 'raises' on sample 1: error: ValueError: boom on purpose"
    else:
        assert on_ray == ([1.0, 0.5, 3.0], Counter({"ok": 2, "error": 1}))


def test_an_allocation_past_max_memory_gets_the_memory_outcome_and_the_worker_carries_on(ray_start):
    from grpo_rewards.execution.ray_backend import get_ray_backend

    backend = get_ray_backend("auto", 1.0)
    outcomes = backend.map(scale_scorers.allocates, [("alloc:512",), ("abc",), ("alloc:16",)], timeout=60.0,
                           max_memory=256 * 2**20)
    assert [o.status for o in outcomes] == ["memory", "ok", "ok"]
    assert [o.value for o in outcomes[1:]] == [3.0, 1.0]
    assert outcomes[0].error == "exceeded the worker's memory cap of 256 MiB"  # the local pool's words


def test_a_sample_that_cannot_be_sent_is_an_error_for_that_sample_only(ray_start):
    import threading

    from grpo_rewards.execution.ray_backend import get_ray_backend

    outcomes = get_ray_backend("auto", 1.0).map(scale_scorers.sleepy, [("ab",), ("cd", threading.Lock())])
    assert outcomes[0] == ("ok", 2.0, None)
    assert outcomes[1].status == "error" and outcomes[1].error.startswith("cannot send the sample to a Ray task: ")


def test_the_backend_is_shared_and_connected_once_per_process(ray_start):
    from grpo_rewards.execution.ray_backend import get_ray_backend

    backend = get_ray_backend("auto", 1.0)
    before = backend.stats["connects"]
    Reward(scale_scorers.sleepy, metric="a", execution=RAY)(prompts=["p"], completions=["x"])
    Reward(scale_scorers.sleepy, metric="b", execution=RAY)(prompts=["p"], completions=["y"])
    assert backend.stats["connects"] == before <= 1
    assert os.environ.get("GRPO_REWARDS_NETNS") == "1"


def test_a_grpo_step_scores_its_rewards_on_ray_concurrently(ray_start, tmp_path):
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from grpo_rewards import load_reward_set
    from grpo_rewards.train.tiny import make_tiny_model

    data = Dataset.from_list([{"prompt": f"Say {w}"} for w in ("yes", "no", "maybe", "ok")])
    reward_set = load_reward_set({"execution": RAY, "concurrent": True, "rewards": [
        {"use": "length.target", "with": {"target": 6, "unit": "chars"}},
        {"use": "format.think", "timeout": 30.0}]}, columns=data.column_names)
    backend_tasks = _ray_tasks()
    args = GRPOConfig(output_dir=str(tmp_path / "out"), per_device_train_batch_size=4, num_generations=4,
                      max_completion_length=8, max_steps=1, logging_steps=1, report_to=[], save_strategy="no",
                      use_cpu=True, reward_weights=reward_set.reward_weights)
    trainer = GRPOTrainer(model=str(make_tiny_model(tmp_path / "tiny")), reward_funcs=reward_set.reward_funcs,
                          args=args, train_dataset=data)
    trainer.train()
    logged = {k: v for entry in trainer.state.log_history for k, v in entry.items()}
    assert {"rewards/length.target/mean", "rewards/format.think/mean", "timing/length.target",
            "timing/format.think"} <= set(logged)
    assert logged.get("outcomes/format.think/error", 0.0) == 0.0  # logged once an error occurs; none did
    assert _ray_tasks() - backend_tasks >= 4  # every completion of at least one reward went to Ray


def _ray_tasks() -> int:
    from grpo_rewards.execution.ray_backend import get_ray_backend

    return get_ray_backend("auto", 1.0).stats["tasks"]


def test_the_max_memory_option_reaches_ray_and_gives_the_memory_label(ray_start):
    reward = Reward(scale_scorers.allocates, metric="alloc", max_memory="256 MiB", error_value=0.0, execution=RAY)
    assert reward(prompts=["p"] * 3, completions=["alloc:512", "abc", "alloc:16"]) == [0.0, 3.0, 1.0]
    assert reward.stats == Counter({"ok": 2, "memory": 1})


def test_the_code_sandbox_runs_inside_the_ray_workers(ray_start):
    """Each code sample is one Ray task whose worker runs the program in the code package's sandbox:
    the passing program passes, the sleeping one meets the sandbox's own 2 s limit (0.0, where the
    reward's 60 s deadline would give None)."""
    from grpo_rewards.execution.ray_backend import get_ray_backend

    prompts, programs, columns = batch_for("code.tests_passed")
    reward = get_reward("code.tests_passed", options={"timeout": 60.0, "execution": RAY})
    before = get_ray_backend("auto", 1.0).stats["tasks"]
    result = reward.score(prompts, programs, **columns)
    assert (result.values, result.labels) == ([1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [
        "passed", "failed", "compile_error", "timeout", "no_code", "runtime_error"])
    assert get_ray_backend("auto", 1.0).stats["tasks"] - before == len(programs)


LEAKY = '''import fractions
import os
import time
from pathlib import Path

SCALE = 1.0


def patcher(text: str, marker_dir: str, **row) -> float:
    """Sets a module global and monkeypatches a class in the Ray worker it runs in."""
    global SCALE
    SCALE = 1000.0
    fractions.Fraction.__str__ = lambda self: "junk"
    Path(marker_dir, f"patcher-{os.getpid()}").write_text("")
    time.sleep(0.2)  # both CPUs' workers take some of the patcher's samples
    return 1.0


def prober(text: str, marker_dir: str, **row) -> float:
    """The text's length while the module global and the class are as imported; -1.0 when patched."""
    Path(marker_dir, f"prober-{os.getpid()}").write_text("")
    return float(len(text)) * SCALE if str(fractions.Fraction(1, 2)) == "1/2" else -1.0
'''


def test_rewards_of_one_set_never_share_a_ray_worker_so_one_cannot_patch_what_another_pays(ray_start, tmp_path):
    from grpo_rewards import load_reward_set

    (tmp_path / "leaky.py").write_text(LEAKY)
    marks = tmp_path / "marks"
    marks.mkdir()
    rs = load_reward_set({"execution": RAY, "rewards": [{"use": f"{tmp_path / 'leaky.py'}:patcher"},
                                                        {"use": f"{tmp_path / 'leaky.py'}:prober"}]})
    patcher, prober = rs.rewards
    texts = ["a", "bb", "ccc", "dddd", "eeeee", "ffffff", "g", "hh"]
    columns = {"marker_dir": [str(marks)] * len(texts)}
    for _ in range(2):  # the prober again after the patcher's workers sat idle between steps
        assert patcher(prompts=["p"] * len(texts), completions=texts, **columns) == [1.0] * len(texts)
        assert prober(prompts=["p"] * len(texts), completions=texts, **columns) == [1.0, 2.0, 3.0, 4.0, 5.0,
                                                                                    6.0, 1.0, 2.0]
    pids = {who: {p.name.split("-")[1] for p in marks.glob(f"{who}-*")} for who in ("patcher", "prober")}
    assert pids["patcher"] and pids["prober"] and pids["patcher"].isdisjoint(pids["prober"]), pids
