"""One real TRL step with the three first-party environments at once (TRL's dict form: each row's
``environment`` column picks one) and the tiny model: each row's tools are its environment's, the
SQLite environment's own reward is logged under ``tools.sqlite`` and scores only its rows."""

from __future__ import annotations

import json

import pytest

import grpo_rewards
from grpo_rewards.plugin.manager import get_plugins
from grpo_rewards.registry import load_registry
from grpo_rewards_tools.environments import registration
from grpo_rewards_tools.environments.tasks import make_calculator, make_sqlite


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    from grpo_rewards.train.tiny import make_tiny_model

    return make_tiny_model(tmp_path_factory.mktemp("tiny"))


class EnvironmentsOnly:
    @grpo_rewards.hookimpl
    def register_environments(self, register):
        registration.register_environments(register)

    @grpo_rewards.hookimpl
    def register_tasks(self, register):
        registration.register_tasks(register)


def test_one_step_with_calculator_sqlite_and_python_environments(tiny_model, tmp_path):
    from grpo_rewards.train.runner import prepare, run

    plugins = get_plugins(load_entry_points=False)
    plugins.add(EnvironmentsOnly(), "tools")
    registry = load_registry(plugins)
    python_row = {"prompt": [{"role": "system", "content": "Use run_python."},
                             {"role": "user", "content": "Print the 20th Fibonacci number."}]}
    rows = ([{**r, "environment": "calc"} for r in make_calculator(1, 0)]
            + [{**r, "environment": "db"} for r in make_sqlite(1, 0)]
            + [{**python_row, "environment": "py"}])
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows * 2))
    config = {"model": str(tiny_model), "output_dir": str(tmp_path / "out"), "dataset": {"path": str(data)},
              "environment": {"calc": "tools.calculator", "db": {"use": "tools.sqlite", "with": {"timeout": 0.5}},
                              "py": "tools.python"},
              "rewards": [],
              "grpo": {"max_steps": 1, "per_device_train_batch_size": 6, "num_generations": 2,
                       "max_completion_length": 8, "logging_steps": 1, "save_strategy": "no", "report_to": "none",
                       "disable_tqdm": True, "activation_checkpointing": False, "shuffle_dataset": False}}
    (tmp_path / "run.yaml").write_text(json.dumps(config))
    plan = prepare(tmp_path / "run.yaml", registry=registry)
    assert plan.config["rewards"] == [{"use": "tools.sqlite", "with": {"timeout": 0.5}}]
    assert list(plan.environment.factory) == ["calc", "db", "py", None]  # None: a row without one gets no tools
    trainer = run(plan)
    assert trainer.reward_func_names == ["tools.sqlite"]
    assert {k: sorted(t.__name__ for t in v) for k, v in trainer._env_tools.items()} == {
        "calc": ["calculate"], "db": ["query"], "py": ["run_python"], None: []}
    logged = {k: v for entry in trainer.state.log_history for k, v in entry.items()}
    assert logged["outcomes/tools.sqlite/other_environment"] == 4  # the calculator's and python's rollouts
    assert sum(v for k, v in logged.items() if k.startswith("outcomes/tools.sqlite/")) == 6
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert [(e["key"], e["name"]) for e in manifest["environments"]] == [
        ("calc", "tools.calculator"), ("db", "tools.sqlite"), ("py", "tools.python")]
