"""The package README's code blocks run: the python block as written, the YAML reward set loads."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from grpo_rewards import load_reward_set

README = Path(__file__).resolve().parents[2] / "packages" / "rewards-tools" / "README.md"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README.read_text(encoding="utf-8"), re.S | re.M)


def test_the_python_blocks_run():
    assert len(_blocks("python")) == 1
    for block in _blocks("python"):
        exec(compile(block, str(README), "exec"), {})


def test_the_yaml_reward_set_loads():
    (block,) = [yaml.safe_load(b) for b in _blocks("yaml")]
    assert load_reward_set(block).metrics == ["tools.call_match", "tools.schema_valid"]
