"""examples/train_plain_trl.py, the TRL lesson's script with our rewards, runs as written (tiny model)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from lanes import needs

pytestmark = needs("trl")

for _module in ("grpo_rewards_math", "grpo_rewards_format", "grpo_rewards_length"):
    pytest.importorskip(_module)

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "train_plain_trl.py"


def test_the_plain_trl_example_trains_and_prints_each_rewards_mean(tmp_path):
    env = {**os.environ, "MODEL": "tiny", "GRPO_REWARDS_CACHE": str(tmp_path / "cache")}
    result = subprocess.run([sys.executable, str(SCRIPT), "1"], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("1 {'rewards/math.accuracy/mean': ")
    assert "'rewards/format.boxed/mean': " in last and "'rewards/length.soft_overlong/mean': " in last
