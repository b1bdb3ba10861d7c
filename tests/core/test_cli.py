"""The grpo-rewards command, run in-process and as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from grpo_rewards.cli import main


def test_list_shows_plugins_versions_rewards_tasks_and_broken_plugins(plugins, capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        "broken (grpo-rewards-fixture-broken 1.2.0) — BROKEN: ModuleNotFoundError: "
        "No module named 'grpo_rewards_this_module_does_not_exist'"
    )
    assert out[1] == "fixture (grpo-rewards-fixture-good 1.2.3)"
    assert out[2].split() == ["fixture.group_size", "Batch", "form:", "how", "many", "completions", "share", "this",
                              "completion's", "prompt."]
    assert "fixture:count" in out[7] and "(task)" in out[7]
    assert out[8] == (
        "hookfail (grpo-rewards-fixture-hookfail 1.2.0) — BROKEN: RuntimeError in register_rewards: "
        "database of rewards is unreachable"
    )


def test_list_json_is_machine_readable(plugins, capsys):
    assert main(["list", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in data["plugins"]] == ["fixture"]
    assert [b["name"] for b in data["broken"]] == ["broken", "hookfail"]
    rewards = {r["name"]: r for r in data["plugins"][0]["rewards"]}
    assert rewards["fixture.shout"]["params"] == {"bonus": "0.0"}
    assert rewards["fixture.matches"]["columns"] == ["solution"]


def test_show_prints_parameters_columns_range_and_units(plugins, capsys):
    assert main(["show", "fixture.shout"]) == 0
    out = capsys.readouterr().out
    assert "fixture.shout  (from plugin fixture, grpo-rewards-fixture-good 1.2.3)" in out
    assert "range:     [0.0, 1.0]" in out
    assert "  bonus: float (default 0.0)" in out
    assert "example:   HELLO -> 1.0" in out


def test_show_unknown_reward_is_one_clear_error(plugins, capsys):
    assert main(["show", "fixture.shuot"]) == 2
    assert capsys.readouterr().err == (
        "grpo-rewards: error: unknown reward 'fixture.shuot'. Did you mean 'fixture.shout'?\n"
    )


def test_score_reports_bad_rows_by_line_and_scores_the_rest(plugins, tmp_path, capsys):
    data = tmp_path / "c.jsonl"
    data.write_text(
        '{"prompt": "p", "completion": "HI", "solution": "HI"}\n'
        "this is not json\n"
        '{"prompt": "p", "completion": [{"role": "assistant", "content": "hi"}], "solution": "HI"}\n'
        '{"prompt": "p", "answer": 3}\n'
        '{"prompt": "p", "completion": "HI", "solution": null}\n'
    )
    rs = tmp_path / "set.yaml"
    rs.write_text("rewards:\n  - use: fixture.shout\n  - use: fixture.matches\n    weight: 2\n")
    out = tmp_path / "scored.jsonl"
    assert main(["score", str(data), "--rewards", str(rs), "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        "bad row: line 2: not JSON (Expecting value)",
        "bad row: line 4: expected an object with a 'completion' field",
    ]
    lines = captured.out.splitlines()
    assert lines[0].startswith("scored 3 rows from")
    assert lines[2].split()[:8] == ["fixture.shout", "1", "0.6667", "0.4714", "0.0000", "1.0000", "0", "0"]
    assert lines[3].split()[:8] == ["fixture.matches", "2", "0.5000", "0.5000", "0.0000", "1.0000", "1", "0"]
    scored = [json.loads(line) for line in out.read_text().splitlines()]
    assert [s["rewards"] for s in scored] == [
        {"fixture.shout": 1.0, "fixture.matches": 1.0},
        {"fixture.shout": 0.0, "fixture.matches": 0.0},
        {"fixture.shout": 1.0, "fixture.matches": None},
    ]
    assert [s["reward"] for s in scored] == [3.0, 0.0, 1.0]


def test_score_with_an_invalid_set_fails_before_scoring(plugins, tmp_path, capsys):
    data = tmp_path / "c.jsonl"
    data.write_text('{"prompt": "p", "completion": "HI"}\n')
    rs = tmp_path / "set.yaml"
    rs.write_text("rewards:\n  - use: fixture.matches\n")
    assert main(["score", str(data), "--rewards", str(rs)]) == 2
    assert capsys.readouterr().err == (
        f"grpo-rewards: error: {rs} has 1 problem(s):\n"
        "  - entry 1 (fixture.matches): needs dataset column(s) 'solution'; the dataset has: completion, prompt\n"
    )


def test_list_does_not_import_heavy_libraries(plugins):
    """With every installed plugin (first-party ones included), listing stays light."""
    code = (
        "import sys; from grpo_rewards.cli import main; main(['list']); "
        "print(sorted(m for m in ('torch', 'transformers', 'trl', 'sympy', 'datasets') if m in sys.modules))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("GRPO_REWARDS_PLUGINS")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.splitlines()[-1] == "[]"


def test_the_console_script_is_installed():
    from pathlib import Path

    script = Path(sys.executable).parent / "grpo-rewards"  # the venv's, whether or not it is on PATH
    out = subprocess.run([str(script), "--version"], capture_output=True, text=True, check=True)
    assert out.stdout == "grpo-rewards 0.1.0\n"
