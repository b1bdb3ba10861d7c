"""The instructions plugin: registration, the task, reward sets, the contract, importable callables."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import grpo_rewards
import grpo_rewards_instructions as ins
from grpo_rewards_instructions.tasks import CONFLICTS, DRAWS, make_synthetic

NAMES = ["instructions.all_followed", "instructions.followed"]


@pytest.fixture(scope="module")
def registry():
    return grpo_rewards.load_registry()


def test_the_plugin_registers_both_rewards_and_the_task(registry):
    assert sorted(n for n in registry.rewards if n.startswith("instructions.")) == NAMES
    assert {registry.reward(n).distribution for n in NAMES} == {"grpo-rewards-instructions"}
    assert "instructions:synthetic" in registry.tasks


def test_registered_parameters_come_from_the_signature(registry):
    params = registry.reward("instructions.followed").params
    assert {n: p.default for n, p in params.items()} == {"mode": "strict", "max_reply_chars": 200_000}


def test_registering_the_plugin_imports_no_checker_nltk_or_langdetect():
    code = ("import sys, grpo_rewards; grpo_rewards.load_registry().reward('instructions.followed'); "
            "print(sorted(m for m in sys.modules if m.startswith(('nltk', 'langdetect', 'punkt', "
            "'grpo_rewards_instructions.'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['grpo_rewards_instructions.definitions', 'grpo_rewards_instructions.hacks', " \
                          "'grpo_rewards_instructions.plugin', 'grpo_rewards_instructions.tasks']"


@pytest.mark.parametrize("name", NAMES)
def test_each_reward_keeps_the_reward_contract(name):
    from grpo_rewards.testing import assert_reward_contract

    assert_reward_contract(name, columns={"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]})


@pytest.mark.parametrize("short", ["followed", "all_followed"])
def test_trl_cli_import_path_resolves_to_the_reward(short):
    module_path, attr = f"grpo_rewards_instructions.{short}".rsplit(".", 1)
    assert getattr(importlib.import_module(module_path), attr) is getattr(ins, short)


def test_a_reward_set_weights_the_two_rewards():
    rs = grpo_rewards.load_reward_set({"rewards": [
        {"use": "instructions.followed", "weight": 1.0, "with": {"mode": "loose"}},
        {"use": "instructions.all_followed", "weight": 0.5},
    ]})
    columns = {"instruction_id_list": [["punctuation:no_comma", "startend:quotation"]], "kwargs": [[{}, {}]]}
    values = [r(prompts=[None], completions=['"owls hunt"'], **columns)[0] for r in rs.reward_funcs]
    assert rs.total(values) == 1.5


def test_a_bad_mode_in_a_reward_set_is_reported_before_scoring():
    with pytest.raises(grpo_rewards.RewardSetError, match="mode must be one of strict, loose"):
        grpo_rewards.load_reward_set({"rewards": [{"use": "instructions.followed", "with": {"mode": "lax"}}]})


def test_the_synthetic_task_is_seeded_and_its_rows_read_cleanly():
    rows = make_synthetic(200, seed=1)
    assert rows == make_synthetic(200, seed=1) and rows != make_synthetic(200, seed=2)
    assert ins.check_rows(rows) == []
    assert {len(r["instruction_id_list"]) for r in rows} == {1, 2, 3}


def test_the_synthetic_task_draws_ifeval_ids_only_so_it_needs_no_ifbench_row():
    from grpo_rewards_instructions.constraints import IFBENCH_IDS, IFEVAL_IDS

    drawn = {i for row in make_synthetic(500, seed=0) for i in row["instruction_id_list"]}
    assert drawn == set(DRAWS) and drawn <= IFEVAL_IDS and not drawn & IFBENCH_IDS
    assert len(drawn) == 15


def test_the_synthetic_task_never_draws_two_conflicting_constraints():
    for row in make_synthetic(500, seed=0):
        ids = row["instruction_id_list"]
        assert len(set(ids)) == len(ids)
        assert not any(b in CONFLICTS[a] for a in ids for b in ids), ids


def test_conflicts_are_symmetric_and_name_only_drawn_ids():
    assert all(a in CONFLICTS[b] for a in CONFLICTS for b in CONFLICTS[a])
    assert set().union(*CONFLICTS.values()) <= set(DRAWS)


def test_the_synthetic_prompt_states_each_constraint():
    row = make_synthetic(1, seed=1, max_constraints=1)[0]
    assert row["instruction_id_list"] == ["detectable_content:postscript"]
    assert row["prompt"].endswith("add a postscript starting with " + row["kwargs"][0]["postscript_marker"])


def test_a_task_row_is_scored_from_its_columns(registry):
    task = registry.task("instructions:synthetic")
    rows = task.factory(4, 0)
    good = ins.followed(prompts=[r["prompt"] for r in rows], completions=["x"] * 4,
                        instruction_id_list=[r["instruction_id_list"] for r in rows],
                        kwargs=[r["kwargs"] for r in rows])
    assert len(good) == 4 and all(0.0 <= v <= 1.0 for v in good)
