"""``trl grpo --reward_funcs grpo_rewards_math.accuracy``: TRL's own command line, offline, on the tiny model.

TRL imports each dotted ``--reward_funcs`` path (``module.attribute``, with the working directory on
``sys.path``), so a reward with parameters is exported from a small module of the user's.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lanes import needs

pytestmark = needs("trl")

pytest.importorskip("grpo_rewards_math")
pytest.importorskip("grpo_rewards_length")

MY_REWARDS = '''\
from grpo_rewards import get_reward

soft_overlong = get_reward("length.soft_overlong", max_length=8, buffer=4)
'''


def _trl() -> list[str]:
    script = Path(sys.executable).parent / "trl"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "trl.cli"]


def test_trl_grpo_trains_with_our_rewards_by_import_path(tiny_model, tmp_path):
    (tmp_path / "data").mkdir()
    rows = [{"prompt": f"What is {a} + 1?", "solution": str(a + 1)} for a in range(8)]  # the columns accuracy reads
    (tmp_path / "data" / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "my_rewards.py").write_text(MY_REWARDS)
    shutil.copytree(tiny_model, tmp_path / "tiny")
    result = subprocess.run(
        [*_trl(), "grpo", "--model_name_or_path", "tiny", "--dataset_name", "data",
         "--reward_funcs", "grpo_rewards_math.accuracy", "my_rewards.soft_overlong",
         "--output_dir", "out", "--max_steps", "1", "--per_device_train_batch_size", "4", "--num_generations", "4",
         "--max_completion_length", "8", "--use_cpu", "--report_to", "none", "--logging_steps", "1",
         "--save_strategy", "no"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "'rewards/math.accuracy/mean'" in result.stdout
    assert "'rewards/length.soft_overlong/mean'" in result.stdout
    assert (tmp_path / "out" / "model.safetensors").is_file()
