"""Two GRPO steps on the tiny model with judge.rubric (served by a local transformers serve) and math.accuracy."""

from __future__ import annotations

import contextlib
import io
import json

import pytest
from lanes import needs

from grpo_rewards.cli.train import train_command

pytestmark = needs("trl")


@pytest.mark.slow
def test_two_steps_train_with_a_judge_served_by_transformers_serve(serve, tiny_model, tmp_path):
    import yaml

    config = {
        "model": "tiny",
        "output_dir": str(tmp_path / "out"),
        "dataset": {"task": "math:arithmetic", "n": 8},
        "rewards": [
            {"use": "math.accuracy"},
            {"use": "judge.rubric", "weight": 0.5,
             "with": {"base_url": serve.base_url, "model": str(tiny_model), "max_tokens": 4, "request_timeout": 120}},
        ],
        "grpo": {"max_steps": 2, "per_device_train_batch_size": 4, "num_generations": 4, "max_completion_length": 8,
                 "logging_steps": 1, "save_steps": 100, "report_to": "none", "seed": 0, "disable_tqdm": True,
                 "activation_checkpointing": False},
    }
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    with contextlib.redirect_stdout(io.StringIO()):
        assert train_command([str(path)]) == 0
    steps = [json.loads(line) for line in (tmp_path / "out" / "metrics.jsonl").read_text().splitlines()]
    steps = [s for s in steps if "rewards/judge.rubric/mean" in s]
    assert [s["step"] for s in steps] == [1, 2]
    for step in steps:
        # the tiny random judge never states a grade: every completion is unparsable, or truncated at max_tokens 4
        # before any grade, and paid 0.0
        assert step["rewards/judge.rubric/mean"] == 0.0
        assert step.get("outcomes/judge.rubric/unparsable", 0.0) + step.get("outcomes/judge.rubric/truncated", 0.0) \
            == 4.0 and "outcomes/judge.rubric/scored" not in step
        assert step["judge_requests/judge.rubric"] + step["judge_cache_hits/judge.rubric"] >= 1.0
        assert step["judge_tokens/judge.rubric"] >= 0.0 and "judge_latency/judge.rubric" in step
