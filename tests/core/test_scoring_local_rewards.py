"""Rewards without a package: `use: file.py:fn` and `use: module:fn` in a reward set."""

from __future__ import annotations

import json
import textwrap

import pytest

from grpo_rewards import load_reward_set
from grpo_rewards.cli import main
from grpo_rewards.errors import RewardSetError

REWARDS = textwrap.dedent('''
    import time

    def shout(text: str, *, bonus: float = 0.0, **row) -> float:
        """1.0 when the text is upper case, plus bonus."""
        if text == "slow":
            time.sleep(60)
        return (1.0 if text.isupper() else 0.0) + bonus

    def unique(prompts, completions, **kwargs):
        """1.0 for a completion no other completion of its prompt repeats."""
        return [1.0 if sum(d == c and q == p for d, q in zip(completions, prompts)) == 1 else 0.0
                for c, p in zip(completions, prompts)]

    def matches(text: str, *, solution, **row):
        """1.0 when the text is the solution."""
        return float(text == solution)
''')


@pytest.fixture
def rewards_dir(tmp_path, plugins):
    folder = tmp_path / "sets"
    folder.mkdir()
    (folder / "my_quick_rewards.py").write_text(REWARDS)
    return folder


def _set(folder, body):
    path = folder / "set.yaml"
    path.write_text("rewards:\n" + textwrap.indent(textwrap.dedent(body), "  "))
    return path


def test_a_file_reward_is_found_beside_the_reward_set_and_lifted_like_a_plugins(rewards_dir, tmp_path,
                                                                                monkeypatch):
    monkeypatch.chdir(tmp_path)  # not the set's folder: the path is relative to the YAML file
    reward_set = load_reward_set(str(_set(rewards_dir, "- use: my_quick_rewards.py:shout\n  with: {bonus: 0.5}\n")))
    assert reward_set.metrics == ["shout"]
    reward = reward_set.rewards[0]
    assert reward(prompts=["p", "p"], completions=["HI", [{"role": "assistant", "content": "hi"}]]) == [1.5, 0.5]


def test_a_file_rewards_parameters_and_columns_are_validated(rewards_dir):
    path = _set(rewards_dir, "- use: my_quick_rewards.py:shout\n  with: {bonus: loud}\n- use: my_quick_rewards.py:matches\n")
    with pytest.raises(RewardSetError) as err:
        load_reward_set(str(path), columns=["prompt", "completion"])
    assert err.value.problems == [
        "entry 1 (my_quick_rewards.py:shout): parameter 'bonus' must be float, got 'loud'",
        "entry 2 (my_quick_rewards.py:matches): needs dataset column(s) 'solution'; the dataset has: completion, prompt",
    ]


def test_a_file_function_with_trls_signature_is_a_batch_reward(rewards_dir, tmp_path):
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"prompt": p, "completion": c}) + "\n"
                            for p, c in [("a", "x"), ("b", "x"), ("a", "x"), ("a", "y")]))
    out = tmp_path / "out.jsonl"
    set_path = _set(rewards_dir, "- use: my_quick_rewards.py:unique\n")
    assert main(["score", str(rows), "--rewards", str(set_path), "--out", str(out), "--batch-size", "1"]) == 0
    assert [json.loads(line)["rewards"]["unique"] for line in out.read_text().splitlines()] == [0.0, 1.0, 0.0, 1.0]


def test_a_file_reward_runs_in_worker_processes_under_a_deadline(rewards_dir):
    path = _set(rewards_dir, "- use: my_quick_rewards.py:shout\n  timeout: 1.5\n")
    reward = load_reward_set(str(path)).rewards[0]
    logged = {}
    assert reward(prompts=["p"] * 3, completions=["HI", "slow", "hi"], log_metric=logged.__setitem__) == [1.0, None, 0.0]
    assert logged["outcomes/shout/timeout"] == 1.0


def test_a_module_reward_is_imported_from_beside_the_reward_set(rewards_dir):
    path = _set(rewards_dir, "- use: my_quick_rewards:shout\n  as: loud\n")
    reward = load_reward_set(str(path)).rewards[0]
    assert reward.__name__ == "loud"
    assert reward(prompts=["p"], completions=["HI"]) == [1.0]


def test_a_module_of_an_installed_plugin_is_refused_with_the_registered_name(rewards_dir):
    path = _set(rewards_dir, "- use: grpo_rewards_fixture_good:shout\n")
    with pytest.raises(RewardSetError) as err:
        load_reward_set(str(path))
    assert err.value.problems == [
        "entry 1: grpo_rewards_fixture_good:shout belongs to the installed plugin 'fixture' "
        "(grpo-rewards-fixture-good); use its registered name: use: fixture.shout"]


def test_a_missing_file_or_function_is_one_problem(rewards_dir):
    path = _set(rewards_dir, "- use: nope.py:f\n- use: my_quick_rewards.py:nope\n")
    with pytest.raises(RewardSetError) as err:
        load_reward_set(str(path))
    assert err.value.problems == [
        f"entry 1: nope.py:f: file not found: {rewards_dir / 'nope.py'}",
        "entry 2: my_quick_rewards.py:nope: the file has no 'nope' (callables there: matches, shout, unique)",
    ]


def test_list_with_a_reward_set_shows_its_file_rewards(rewards_dir, capsys):
    path = _set(rewards_dir, "- use: my_quick_rewards.py:shout\n- use: fixture.shout\n")
    assert main(["list", "--rewards", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    at = out.index("local rewards (from the reward set)")
    assert out[at + 1].split() == ["my_quick_rewards.py:shout", "1.0", "when", "the", "text", "is", "upper", "case,",
                                   "plus", "bonus."]
    assert main(["list", "--json", "--rewards", str(path)]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert [(r["name"], r["params"]) for r in listing["local"]] == [
        ("my_quick_rewards.py:shout", {"bonus": {"type": "float", "required": False, "default": 0.0}})]


def test_a_module_reward_runs_in_worker_processes_that_import_it_from_beside_the_set(rewards_dir):
    path = _set(rewards_dir, "- use: my_quick_rewards:shout\n  timeout: 1.5\n  with: {bonus: 1.0}\n")
    reward = load_reward_set(str(path)).rewards[0]
    assert reward(prompts=["p"] * 3, completions=["HI", "slow", "hi"]) == [2.0, None, 1.0]
