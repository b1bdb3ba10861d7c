"""The package README's code blocks run: python blocks as written, YAML reward sets validate against the plugins."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

import grpo_rewards

README = Path(__file__).resolve().parents[2] / "packages" / "rewards-instructions" / "README.md"
TEXT = README.read_text(encoding="utf-8")


def test_the_python_blocks_run():
    blocks = re.findall(r"```python\n(.*?)```", TEXT, re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, str(README), "exec"), {})


def test_the_yaml_reward_sets_validate():
    blocks = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", TEXT, re.S)]
    assert len(blocks) == 2
    for block in blocks:
        reward_set = grpo_rewards.load_reward_set(block)
        assert reward_set.entries[0].use == "instructions.followed"
