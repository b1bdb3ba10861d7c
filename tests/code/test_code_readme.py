"""The package README's code blocks run: python blocks in one namespace, the YAML block builds its dataset."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from grpo_rewards import load_registry
from grpo_rewards.train.data import _task_rows

README = Path(__file__).resolve().parents[2] / "packages" / "rewards-code" / "README.md"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README.read_text(encoding="utf-8"), re.S | re.M)


def test_the_python_blocks_run(sandbox):
    namespace: dict = {}
    assert len(_blocks("python")) == 3
    for block in _blocks("python"):
        exec(compile(block, str(README), "exec"), namespace)


def test_the_yaml_dataset_builds_and_its_reward_set_loads():
    from grpo_rewards import load_reward_set

    (block,) = [yaml.safe_load(b) for b in _blocks("yaml")]
    rows = _task_rows({**block["dataset"], "n": 8}, load_registry())
    assert len(rows) == 8 and {r["family"] for r in rows} == {"sum", "max", "min", "count"}
    assert load_reward_set(block["rewards"]).metrics == ["code.tests_passed"]
