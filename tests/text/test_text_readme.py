"""The package README's code blocks run: python blocks (not marked "not run") in one namespace, YAML reward sets load."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

import grpo_rewards

README = Path(__file__).resolve().parents[2] / "packages" / "rewards-text" / "README.md"
BLOCK = re.compile(r"(<!--\s*not run:[^>]*-->\s*\n)?```(python|yaml)\n(.*?)\n```[ \t]*$", re.S | re.M)


def _blocks(language):
    return [code for marker, lang, code in BLOCK.findall(README.read_text(encoding="utf-8"))
            if lang == language and not marker]


def test_the_python_blocks_run():
    blocks = _blocks("python")
    assert len(blocks) >= 4
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)


def test_the_yaml_reward_sets_load():
    blocks = _blocks("yaml")
    assert blocks
    for block in blocks:
        assert grpo_rewards.load_reward_set(yaml.safe_load(block)).reward_funcs
