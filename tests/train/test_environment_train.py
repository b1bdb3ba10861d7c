"""``grpo-rewards train`` with an environment: one real TRL step through the tool loop with the tiny
model; the environment's own reward is logged under its name, once; rewards receive TRL's
``environments``; the manifest records the environment; ``score`` replays the recorded trajectories
to the values the step gave."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

import grpo_rewards
from grpo_rewards.environment import call_get_reward

#: what the recording reward saw in the step: (prompt, completion, target, the environment's reward)
SEEN: list[tuple[Any, Any, Any, Any]] = []


class Guess:
    """A counter the model adds to; 1.0 when the count reaches the row's target."""

    def __init__(self, start: int = 0) -> None:
        self.start = start
        self.n = start
        self.target = None

    def reset(self, **row: Any) -> None:
        self.n = self.start
        self.target = row.get("target")

    def add(self, k: int) -> str:
        """Add k to the counter and return the new count.

        Args:
            k: how much to add
        """
        self.n += k
        return str(self.n)

    def get_reward(self) -> float:
        self.outcome = "hit" if self.n == self.target else "miss"
        return 1.0 if self.n == self.target else 0.0


def saw_environment(prompts: list, completions: list, completion_ids: Any = None, *,
                    environments: Any = None, **kwargs: Any) -> list[float]:
    """1.0 for each completion whose environment the reward received; records what it saw."""
    target = kwargs["target"]
    for i, completion in enumerate(completions):
        SEEN.append((prompts[i], completion, target[i], call_get_reward(environments[i]) if environments else None))
    return [1.0 if environments else 0.0] * len(completions)


def rows(n: int, seed: int) -> list[dict[str, Any]]:
    """Rows whose target is 0 (reached without a call) or 3."""
    return [{"prompt": [{"role": "system", "content": "Use the add tool."},
                        {"role": "user", "content": f"Reach {3 * (i % 2)}."}], "target": 3 * (i % 2)}
            for i in range(n)]


class ToyEnvPlugin:
    @grpo_rewards.hookimpl
    def register_environments(self, register):
        register("guess", Guess)

    @grpo_rewards.hookimpl
    def register_rewards(self, register):
        register("saw_environment", saw_environment, form="batch")

    @grpo_rewards.hookimpl
    def register_tasks(self, register):
        register("count", rows, environment={"use": "toyenv.guess", "with": {"start": 0}},
                 default_rewards=[{"use": "toyenv.saw_environment", "weight": 0.5}])


@pytest.fixture
def env_registry():
    from grpo_rewards.plugin.manager import get_plugins
    from grpo_rewards.registry import load_registry

    plugins = get_plugins(load_entry_points=False)
    plugins.add(ToyEnvPlugin(), "toyenv")
    return load_registry(plugins)


def test_a_task_with_an_environment_is_a_complete_run_and_its_reward_is_counted_once(env_registry, tiny_model,
                                                                                       tmp_path, capsys):
    from grpo_rewards.train.runner import prepare, run

    SEEN.clear()
    config = {"model": str(tiny_model), "output_dir": str(tmp_path / "out"), "dataset": {"task": "toyenv:count", "n": 4},
              "grpo": {"max_steps": 1, "per_device_train_batch_size": 4, "num_generations": 4,
                       "max_completion_length": 8, "logging_steps": 1, "save_strategy": "no", "report_to": "none",
                       "disable_tqdm": True, "activation_checkpointing": False}}
    (tmp_path / "run.yaml").write_text(json.dumps(config))
    plan = prepare(tmp_path / "run.yaml", registry=env_registry)
    assert plan.config["rewards"] == [{"use": "toyenv.saw_environment", "weight": 0.5},
                                      {"use": "toyenv.guess", "with": {"start": 0}}]
    assert plan.grpo_kwargs["max_tool_calling_iterations"] == 8  # TRL's default has no limit
    trainer = run(plan)
    assert (f" · rewards: toyenv.saw_environment×0.5, toyenv.guess×1 · environment toyenv.guess · 4 prompts · "
            f"output {tmp_path / 'out'}\n") in capsys.readouterr().out
    assert trainer.reward_func_names == ["toyenv.saw_environment", "toyenv.guess"]  # no "Guess" column of TRL's
    logged = {k: v for entry in trainer.state.log_history for k, v in entry.items()}
    assert logged["rewards/toyenv.saw_environment/mean"] == 1.0
    assert 0.0 <= logged["rewards/toyenv.guess/mean"] <= 1.0
    assert logged.get("outcomes/toyenv.guess/hit", 0) + logged.get("outcomes/toyenv.guess/miss", 0) == 4
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["environments"] == [{"key": None, "name": "toyenv.guess", "params": {"start": 0},
                                         "owns_reward": True, "plugin": "toyenv", "distribution": None,
                                         "version": None}]

    # offline: the recorded trajectories replayed into fresh environments give the step's values
    assert len(SEEN) == 4 and all(isinstance(c, list) for _, c, _, _ in SEEN)
    reward = grpo_rewards.load_reward_set([{"use": "toyenv.guess"}], registry=env_registry).rewards[0]
    replayed = reward.score(prompts=[p for p, _, _, _ in SEEN], completions=[c for _, c, _, _ in SEEN],
                            target=[t for _, _, t, _ in SEEN])
    assert replayed.values == [v for _, _, _, v in SEEN]
    assert not any(math.isnan(v) for v in replayed.values)


def test_an_unknown_environment_parameter_is_refused_before_the_model_loads(env_registry, tiny_model, tmp_path):
    from grpo_rewards.errors import ConfigError
    from grpo_rewards.train.runner import prepare

    config = {"model": str(tiny_model), "output_dir": str(tmp_path / "out"), "dataset": {"task": "toyenv:count"},
              "environment": {"use": "toyenv.guess", "with": {"begin": 1}}, "grpo": {"max_steps": 1}}
    (tmp_path / "run.yaml").write_text(json.dumps(config))
    with pytest.raises(ConfigError, match=r"environment: environment toyenv.guess has no parameter\(s\) 'begin'; "
                                          r"its parameters: start"):
        prepare(tmp_path / "run.yaml", registry=env_registry)


def test_the_dry_run_and_the_run_header_name_the_environments(env_registry, tiny_model, tmp_path, capsys):
    from grpo_rewards.cli.train import train_command

    config = {"model": str(tiny_model), "output_dir": str(tmp_path / "out"), "dataset": {"task": "toyenv:count", "n": 4},
              "grpo": {"max_steps": 1}}
    (tmp_path / "run.yaml").write_text(json.dumps(config))
    assert train_command([str(tmp_path / "run.yaml"), "--dry-run"], registry=env_registry) == 0
    assert capsys.readouterr().out == (
        f"grpo-rewards: dry run OK: {tmp_path / 'run.yaml'}, model {tiny_model}, 4 prompts with columns prompt, "
        "target, rewards toyenv.saw_environment×0.5, toyenv.guess×1, environment toyenv.guess, output "
        f"{tmp_path / 'out'}; rewards run concurrently (TRL awaits them together), on this machine\n")
    rows_file = tmp_path / "rows.jsonl"
    rows_file.write_text("".join(json.dumps({**row, "environment": ["a", "b"][i % 2]}) + "\n"
                                 for i, row in enumerate(rows(4, 0))))
    config.update(dataset={"path": str(rows_file)}, rewards=[{"use": "toyenv.saw_environment"}],
                  environment={"a": "toyenv.guess", "b": {"use": "toyenv.guess", "with": {"start": 1}}})
    (tmp_path / "run.yaml").write_text(json.dumps(config))
    assert train_command([str(tmp_path / "run.yaml"), "--dry-run"], registry=env_registry) == 0
    assert ", environments a: toyenv.guess, b: toyenv.guess, output" in capsys.readouterr().out


def test_a_row_whose_environment_the_mapping_does_not_name_is_refused_before_the_model_loads(env_registry, tiny_model,
                                                                                              tmp_path):
    # before: TRL raised ValueError at the first batch holding such a row, mid-run
    from grpo_rewards.errors import ConfigError
    from grpo_rewards.train.runner import prepare

    rows_file = tmp_path / "rows.jsonl"
    rows_file.write_text("".join(json.dumps({**row, "environment": value}) + "\n"
                                 for row, value in zip(rows(6, 0), ["a", "b", "c", "a", None, "c"])))
    config = {"model": str(tiny_model), "output_dir": str(tmp_path / "out"), "dataset": {"path": str(rows_file)},
              "rewards": [{"use": "toyenv.saw_environment"}], "grpo": {"max_steps": 1},
              "environment": {"a": "toyenv.guess", "b": "toyenv.guess"}}
    (tmp_path / "run.yaml").write_text(json.dumps(config))
    with pytest.raises(ConfigError) as caught:
        prepare(tmp_path / "run.yaml", registry=env_registry)
    assert caught.value.problems == [  # (None, row 4, is a row without tools: NoEnvironment)
        "environment: the dataset's 'environment' column holds 1 value(s) the mapping does not name: 'c' (row 2); it "
        "names 'a', 'b' (TRL would stop the run at the first batch holding one)"]


def test_rows_without_an_environment_train_beside_rows_with_one_without_tools(env_registry, tiny_model, tmp_path):
    # before: refused (TRL stops at the first row whose environment its mapping does not name): a dataset mixing
    # tool rows with other tasks' rows could not train with its environments
    from grpo_rewards.train.environment import NoEnvironment
    from grpo_rewards.train.runner import prepare, run

    SEEN.clear()
    rows_file = tmp_path / "rows.jsonl"
    rows_file.write_text("".join(json.dumps({**row, "environment": value}) + "\n"
                                 for row, value in zip(rows(2, 0), ["a", None])))  # one step: both prompts
    config = {"model": str(tiny_model), "output_dir": str(tmp_path / "out"), "dataset": {"path": str(rows_file)},
              "rewards": [{"use": "toyenv.saw_environment"}], "environment": {"a": "toyenv.guess"},
              "grpo": {"max_steps": 1, "per_device_train_batch_size": 4, "num_generations": 2,
                       "max_completion_length": 8, "logging_steps": 1, "save_strategy": "no", "report_to": "none",
                       "disable_tqdm": True, "activation_checkpointing": False}}
    (tmp_path / "run.yaml").write_text(json.dumps(config))
    plan = prepare(tmp_path / "run.yaml", registry=env_registry)
    assert plan.environment.factory[None] is NoEnvironment
    trainer = run(plan)
    logged = {k: v for entry in trainer.state.log_history for k, v in entry.items()}
    assert logged["outcomes/toyenv.guess/other_environment"] + logged.get("outcomes/toyenv.guess/hit", 0) + \
        logged.get("outcomes/toyenv.guess/miss", 0) == 4
    assert logged["outcomes/toyenv.guess/other_environment"] == 2  # the two completions of the row without one
    assert sorted(type(e).__name__ for e in trainer.environments) == ["Guess", "Guess", "NoEnvironment",
                                                                      "NoEnvironment"]
    # a reward gets every rollout's environment: a row without one, an environment with no reward of its own
    assert sorted(reward is None for _, _, _, reward in SEEN) == [False, False, True, True]
