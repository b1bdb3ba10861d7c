"""An environment's parameters are checked before the model loads, as a reward's are: their types by the core
(from the annotations), their values by the environment itself (built once while the run is planned). Before,
only the names were checked and ``timeout: 0`` or ``max_chars: 0`` trained with every tool call an error."""

from __future__ import annotations

import json

import pytest

from grpo_rewards.cli.train import train_command
from grpo_rewards.errors import ConfigError
from grpo_rewards_tools.environments.calculator import Calculator
from grpo_rewards_tools.environments.database import SQLite
from grpo_rewards_tools.environments.python import Python


@pytest.mark.parametrize(("cls", "params", "message"), [
    (Python, {"time_limit": 0}, "time_limit must be a number in [0.01, 60], got 0"),
    (Python, {"time_limit": float("nan")}, "time_limit must be a number in [0.01, 60], got nan"),
    (Python, {"memory_mb": 0}, "memory_mb must be an integer in [16, 16384], got 0"),
    (Python, {"max_output": 0}, "max_output must be an integer >= 1, got 0"),
    (Python, {"max_cells": -1}, "max_cells must be an integer >= 1, got -1"),
    (Python, {"warm": "yes"}, "warm must be true or false, got 'yes'"),
    (SQLite, {"timeout": 0}, "timeout must be a number in [0.01, 300], got 0"),
    (SQLite, {"max_rows": 0}, "max_rows must be an integer in [1, 10000], got 0"),
    (SQLite, {"max_chars": -1}, "max_chars must be an integer >= 1, got -1"),
    (SQLite, {"max_output": 2.5}, "max_output must be an integer >= 1, got 2.5"),
    (Calculator, {"max_chars": 0}, "max_chars must be an integer >= 1, got 0"),
    (Calculator, {"max_result_chars": True}, "max_result_chars must be an integer >= 1, got True"),
])
def test_each_environment_refuses_a_value_that_would_turn_every_call_into_an_error(cls, params, message):
    with pytest.raises(ValueError) as info:
        cls(**params)
    assert str(info.value) == message


def test_the_defaults_and_values_within_the_bounds_build():
    assert Python(time_limit=0.5, memory_mb=64, max_output=1, max_cells=1, warm=False).max_cells == 1
    assert SQLite(timeout=0.01, max_rows=10_000, max_chars=1, max_output=1).max_rows == 10_000
    assert Calculator(max_chars=1, max_result_chars=1).max_chars == 1
    assert (Python().time_limit, SQLite().timeout, Calculator().max_chars) == (2.0, 1.0, 200)


def _plan(tmp_path, environment):
    config = {"model": "tiny", "output_dir": str(tmp_path / "out"), "dataset": {"task": "tools:sqlite", "n": 4},
              "environment": environment}
    (tmp_path / "run.yaml").write_text(json.dumps(config))
    with pytest.raises(ConfigError) as info:
        train_command([str(tmp_path / "run.yaml"), "--dry-run"])
    return info.value.problems


def test_a_run_is_refused_before_the_model_loads_with_the_environments_own_message_alone(tmp_path):
    # the task's rewards come from the environment: no second problem saying the rewards are missing
    assert _plan(tmp_path, {"use": "tools.sqlite", "with": {"timeout": 0}}) == [
        "environment: environment tools.sqlite cannot be built with {'timeout': 0}: ValueError: timeout must be a "
        "number in [0.01, 300], got 0"]


def test_a_value_of_the_wrong_type_is_named_as_a_rewards_is(tmp_path):
    assert _plan(tmp_path, {"use": "tools.sqlite", "with": {"max_rows": "50"}}) == [
        "environment: environment tools.sqlite: parameter 'max_rows' must be int, got '50'"]
    assert _plan(tmp_path, {"use": "tools.python", "with": {"warm": "no"}}) == [
        "environment: environment tools.python: parameter 'warm' must be bool, got 'no'"]
