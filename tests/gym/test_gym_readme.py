"""The package README's code blocks run: python blocks in one namespace, YAML blocks build their datasets."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from grpo_rewards import load_registry
from grpo_rewards.train.data import _task_rows

README = Path(__file__).resolve().parents[2] / "packages" / "rewards-gym" / "README.md"


def test_the_python_blocks_run():
    namespace: dict = {}
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)


def test_the_yaml_datasets_build_with_their_parameters():
    registry = load_registry()
    blocks = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", README.read_text(encoding="utf-8"), re.S)]
    assert len(blocks) == 2
    for block in blocks:
        rows = _task_rows({**block["dataset"], "n": 8}, registry)
        assert len(rows) == 8 and all(r["gym_dataset"] for r in rows)
