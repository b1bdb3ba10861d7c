"""`grpo-rewards train examples/code_sql.yaml`: two steps on the tiny random model, offline, scored by code.sql_match."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from lanes import needs

from grpo_rewards.cli.train import train_command

pytestmark = needs("trl")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "code_sql.yaml"


def test_the_code_sql_example_passes_a_dry_run(sandbox, capsys):
    assert train_command([str(EXAMPLE), "--dry-run", "dataset.n=8"]) == 0


@pytest.mark.slow
def test_the_code_sql_example_trains_on_the_tiny_model(sandbox, tmp_path, monkeypatch):
    monkeypatch.setenv("GRPO_REWARDS_CACHE", str(tmp_path / "cache"))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert train_command([str(EXAMPLE), "model=tiny", "--max-steps", "2", "--output-dir", str(tmp_path / "run"),
                              "dataset.n=16", "grpo.max_completion_length=8", "grpo.save_steps=2"]) == 0
    assert f"code.sql_match runs in sandbox: {sandbox.description}" in out.getvalue()
    history = json.loads((tmp_path / "run" / "trainer_state.json").read_text())["log_history"]
    steps = [h for h in history if "rewards/code.sql_match/mean" in h]
    assert len(steps) == 2
    # eight random tokens never close a ```sql block nor begin with SELECT: every completion is no_sql, 0.0
    assert all(h["rewards/code.sql_match/mean"] == 0.0 for h in steps)
    assert all(h.get("outcomes/code.sql_match/no_sql", 0) > 0 for h in steps)
