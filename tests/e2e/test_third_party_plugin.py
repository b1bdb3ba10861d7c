"""The third-party example plugin (examples/third-party-plugin, grpo-rewards-keywords) end to end.

It is installed the way a user installs a package (CI runs ``pip install -e examples/third-party-plugin``;
when it is not installed, the test installs a built copy into a private folder), shows up in
``grpo-rewards list``, is used by name in a reward set next to the first-party rewards, passes its
own kit-based tests, and is trained with for a few GRPO steps on a tiny model.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from lanes import pip_install_copies

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "third-party-plugin"


@pytest.fixture(scope="session")
def keywords_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Environment for subprocesses in which the keywords plugin is installed and discoverable."""
    env = dict(os.environ)
    env.pop("GRPO_REWARDS_PLUGINS", None)
    try:
        metadata.distribution("grpo-rewards-keywords")
    except metadata.PackageNotFoundError:
        site = tmp_path_factory.mktemp("keywords-site")
        pip_install_copies(site, EXAMPLE)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), env.get("PYTHONPATH", "")) if p)
    return env


def _grpo_rewards(env: dict[str, str], *args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "grpo_rewards.cli", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


def test_the_example_plugin_is_listed_with_its_rewards(keywords_env):
    run = _grpo_rewards(keywords_env, "list", "--json")
    assert run.returncode == 0, run.stderr
    listing = json.loads(run.stdout)
    plugins = {p["name"]: p for p in listing["plugins"]}
    assert plugins["keywords"]["distribution"] == "grpo-rewards-keywords"
    assert plugins["keywords"]["version"] == "0.1.0"
    assert [r["name"] for r in plugins["keywords"]["rewards"]] == ["keywords.coverage", "keywords.column_coverage"]
    assert plugins["keywords"]["rewards"][1]["columns"] == ["keywords"]
    assert listing["broken"] == []


def test_the_example_plugin_passes_grpo_rewards_check(keywords_env):
    run = _grpo_rewards(keywords_env, "check", "keywords.coverage", "--with", "keywords=[answer, because]")
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines()[-1] == "all contract points pass"


def test_the_example_plugin_scores_in_a_reward_set_with_first_party_rewards(keywords_env, tmp_path):
    (tmp_path / "rewards.yaml").write_text(
        "rewards:\n"
        "  - use: math.accuracy\n"
        "  - use: format.boxed\n"
        "    weight: 0.5\n"
        "  - use: keywords.coverage\n"
        "    weight: 0.25\n"
        "    with: {keywords: [answer, because]}\n"
        "  - use: keywords.column_coverage\n"
        "    as: mentions_the_topic\n"
        "    weight: 0.25\n"
    )
    rows = [
        {"prompt": "What is 2 + 2?", "completion": "Because 2 + 2 = 4, the answer is \\boxed{4}.",
         "solution": "4", "keywords": ["2", "4"]},
        {"prompt": "What is 2 + 3?", "completion": [{"role": "assistant", "content": "The answer is \\boxed{6}."}],
         "solution": "5", "keywords": "five, 5"},
        {"prompt": "What is 3 + 3?", "completion": "No idea.", "solution": "6", "keywords": []},
    ]
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    run = _grpo_rewards(keywords_env, "score", "rows.jsonl", "--rewards", "rewards.yaml", "--out", "scored.jsonl",
                        "--no-progress", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    scored = [json.loads(line) for line in (tmp_path / "scored.jsonl").read_text().splitlines()]
    assert [s["rewards"] for s in scored] == [
        {"math.accuracy": 1.0, "format.boxed": 1.0, "keywords.coverage": 1.0, "mentions_the_topic": 1.0},
        {"math.accuracy": 0.0, "format.boxed": 1.0, "keywords.coverage": 0.5, "mentions_the_topic": 0.0},
        {"math.accuracy": 0.0, "format.boxed": 0.0, "keywords.coverage": 0.0, "mentions_the_topic": None},
    ]
    assert [s["reward"] for s in scored] == [2.0, 0.625, 0.0]


def test_the_example_plugins_own_tests_pass(keywords_env):
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(EXAMPLE / "tests")],
                         env=keywords_env, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "17 passed" in run.stdout


@pytest.mark.slow
def test_training_a_few_steps_with_the_example_plugin_and_first_party_rewards(keywords_env, tmp_path):
    from grpo_rewards.train.tiny import make_tiny_model

    model = make_tiny_model(tmp_path / "tiny-model")
    rows = [{"prompt": f"What is {a} + {b}? Give the answer.", "solution": str(a + b), "keywords": ["answer", str(a + b)]}
            for a, b in [(1, 2), (2, 2), (3, 4), (5, 1)]]
    (tmp_path / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    run_dir = tmp_path / "run"
    (tmp_path / "run.yaml").write_text(
        f"model: {model}\n"
        f"output_dir: {run_dir}\n"
        "dataset:\n"
        "  path: train.jsonl\n"
        "rewards:\n"
        "  - {use: math.accuracy, weight: 1.0}\n"
        "  - {use: format.boxed, weight: 0.2}\n"
        "  - {use: keywords.coverage, weight: 0.5, with: {keywords: [answer, the]}}\n"
        "  - {use: keywords.column_coverage, weight: 0.5}\n"
        "grpo:\n"
        "  max_steps: 2\n"
        "  per_device_train_batch_size: 4\n"
        "  num_generations: 4\n"
        "  max_completion_length: 8\n"
        "  learning_rate: 1.0e-4\n"
        "  logging_steps: 1\n"
        "  save_steps: 2\n"
        "  report_to: none\n"
        "  disable_tqdm: true\n"
        "  seed: 0\n"
        "  bf16: false\n"
    )
    run = _grpo_rewards(keywords_env, "train", "run.yaml", cwd=tmp_path, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    states = sorted(run_dir.glob("checkpoint-*/trainer_state.json"))
    assert [p.parent.name for p in states] == ["checkpoint-2"]
    history = json.loads(states[-1].read_text())["log_history"]
    logged = [entry for entry in history if "rewards/keywords.coverage/mean" in entry]
    assert [entry["step"] for entry in logged] == [1, 2]
    assert all(0.0 <= entry["rewards/keywords.coverage/mean"] <= 1.0 for entry in logged)
    assert all("rewards/keywords.column_coverage/mean" in entry and "rewards/math.accuracy/mean" in entry
               for entry in logged)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    used = {entry["name"]: entry for entry in manifest["rewards"]}
    assert used["keywords.coverage"]["distribution"] == "grpo-rewards-keywords"
    assert used["keywords.coverage"]["params"] == {"keywords": ["answer", "the"], "case_sensitive": False,
                                                   "whole_words": True}
    assert used["keywords.column_coverage"]["version"] == "0.1.0"
