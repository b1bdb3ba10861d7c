"""The task names and parameters are data that matches the installed reasoning-gym; list never imports it."""

from __future__ import annotations

import subprocess
import sys

from grpo_rewards import load_registry
from grpo_rewards_gym.catalog import build_catalog, catalog, dataset_names


def test_the_stored_catalog_is_what_the_installed_reasoning_gym_registers():
    built = build_catalog()
    assert built["datasets"] == catalog()["datasets"], "regenerate it: python -m grpo_rewards_gym.catalog"


def test_every_reasoning_gym_dataset_is_a_task_and_the_composite_is_gym_mix():
    from reasoning_gym.factory import DATASETS

    tasks = {name for name in load_registry().tasks if name.startswith("gym:")}
    assert tasks == {f"gym:{name}" for name in DATASETS if name != "composite"} | {"gym:mix"}
    assert len(dataset_names()) >= 100


def test_no_generator_parameter_is_named_like_the_tasks_own_system_prompt():
    assert not [name for name, spec in catalog()["datasets"].items() if "system_prompt" in spec["params"]]


def test_list_and_show_import_neither_reasoning_gym_nor_sympy():
    code = ("import sys; from grpo_rewards.cli import main; main(['list']); main(['show', 'gym:chain_sum']); "
            "main(['show', 'gym.accuracy']); sys.exit(any(m in sys.modules for m in ('reasoning_gym', 'sympy')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "gym:chain_sum" in done.stdout and "min_terms: int (default 2)" in done.stdout
