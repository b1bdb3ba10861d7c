"""gym:<dataset> and gym:mix: generator parameters passed through, refused when unknown, the system prompt."""

from __future__ import annotations

import re

import pytest

from grpo_rewards import load_registry
from grpo_rewards.train.data import DatasetError, _task_rows
from grpo_rewards_gym import BROKEN, make_mix, make_rows


@pytest.fixture(scope="module")
def registry():
    return load_registry()


def test_generator_parameters_reach_reasoning_gym(registry):
    rows = _task_rows({"task": "gym:chain_sum", "n": 6, "seed": 1,
                       "params": {"min_terms": 4, "max_terms": 4, "min_digits": 1, "max_digits": 1}}, registry)
    questions = [r["prompt"][-1]["content"] for r in rows]
    assert [len(re.findall(r"\d+", q.split(":")[-1])) for q in questions] == [4] * 6


def test_rows_are_the_same_for_a_seed_and_differ_across_seeds():
    assert make_rows("leg_counting", 3, seed=5) == make_rows("leg_counting", 3, seed=5)
    assert make_rows("leg_counting", 3, seed=5) != make_rows("leg_counting", 3, seed=6)


def test_an_unknown_generator_parameter_is_refused_with_the_tasks_parameters(registry):
    with pytest.raises(DatasetError, match=r"task gym:chain_sum has no parameter\(s\) 'min_term'; its parameters: "
                                           r"allow_negation, max_digits, max_terms, min_digits, min_terms, system_prompt"):
        _task_rows({"task": "gym:chain_sum", "params": {"min_term": 3}}, registry)


def test_a_value_reasoning_gym_rejects_is_one_dataset_error(registry):
    with pytest.raises(DatasetError, match=r"gym:chain_sum: reasoning-gym refused the parameters \{'min_terms': 9, "
                                           r"'max_terms': 2\}: AssertionError"):
        _task_rows({"task": "gym:chain_sum", "n": 2, "params": {"min_terms": 9, "max_terms": 2}}, registry)


def test_a_list_is_given_to_a_tuple_parameter_as_a_tuple_and_stays_one_in_the_rebuilt_scorer():
    from grpo_rewards_gym.scoring import scorer_dataset

    rows = make_rows("complex_arithmetic", 3, seed=0, params={"operations": ["+"], "operations_weights": [1.0]})
    assert all(" + " in r["prompt"][-1]["content"] for r in rows)
    assert scorer_dataset("complex_arithmetic", rows[0]["gym_config"]).config.operations == ("+",)


def test_rows_start_with_reasoning_gyms_system_prompt_which_can_be_chosen_or_left_out():
    from reasoning_gym.utils import SYSTEM_PROMPTS

    (row,) = make_rows("leg_counting", 1)
    assert row["prompt"][0] == {"role": "system", "content": SYSTEM_PROMPTS["default"]}
    assert "<answer>" in row["prompt"][0]["content"] and row["prompt"][1]["role"] == "user"
    assert make_rows("leg_counting", 1, system_prompt="DeepSeekZero")[0]["prompt"][0]["content"] == \
        SYSTEM_PROMPTS["DeepSeekZero"]
    assert make_rows("leg_counting", 1, system_prompt="Be brief.")[0]["prompt"][0]["content"] == "Be brief."
    assert make_rows("leg_counting", 1, system_prompt=None)[0]["prompt"] == row["prompt"][1]["content"]


def test_the_training_configs_system_prompt_replaces_the_rows_own(registry):
    from grpo_rewards.train.data import load_dataset_from_config

    dataset = load_dataset_from_config({"task": "gym:leg_counting", "n": 2, "system_prompt": "Count legs."}, registry)
    assert [m["role"] for m in dataset[0]["prompt"]] == ["system", "user"]
    assert dataset[0]["prompt"][0]["content"] == "Count legs."


def test_mix_draws_each_row_from_one_of_its_tasks_by_weight_with_that_tasks_params(registry):
    rows = _task_rows({"task": "gym:mix", "n": 40, "seed": 2, "params": {"tasks": [
        {"task": "gym:chain_sum", "weight": 1, "params": {"min_terms": 5, "max_terms": 5}},
        {"task": "leg_counting", "weight": 3}]}}, registry)
    names = [r["gym_dataset"] for r in rows]
    assert set(names) == {"chain_sum", "leg_counting"} and names.count("leg_counting") > names.count("chain_sum")
    assert all('"min_terms": 5' in r["gym_config"] for r in rows if r["gym_dataset"] == "chain_sum")
    assert make_mix(5, seed=2, tasks=["leg_counting", "chain_sum"]) == make_mix(5, seed=2, tasks=["leg_counting",
                                                                                                   "chain_sum"])


def test_mix_keeps_known_broken_scorers_out_unless_allowed():
    assert set(BROKEN) == {"game_of_life_halting", "puzzle24"}
    with pytest.raises(ValueError, match=r"tasks\[2\]: gym:puzzle24 is kept out of gym:mix: its score_answer checks"):
        make_mix(2, tasks=["chain_sum", "gym:puzzle24"])
    assert {r["gym_dataset"] for r in make_mix(6, tasks=["chain_sum", "puzzle24"], allow_broken=True)} <= {
        "chain_sum", "puzzle24"}


def test_the_default_mix_draws_from_every_dataset_but_the_broken_ones():
    names = {r["gym_dataset"] for r in make_mix(150, seed=0)}
    assert len(names) > 60 and not names & set(BROKEN)


@pytest.mark.parametrize(("tasks", "message"), [
    ([], "tasks must be a non-empty list"),
    ([{"task": "chain_sum", "weight": 0}], r"tasks\[1\].weight must be a positive number"),
    ([{"task": "chain_summ"}], r"unknown reasoning-gym dataset 'chain_summ' \(did you mean 'gym:chain_sum'\?\)"),
    ([{"task": "chain_sum", "params": {"min_term": 2}}], r"gym:chain_sum has no parameter\(s\) 'min_term'"),
    (["chain_sum", "gym:chain_sum"], r"tasks\[2\]: gym:chain_sum is named twice"),
    ([{"task": "chain_sum", "wieght": 2}], r"tasks\[1\] must be \{task: gym:<name>, weight"),
])
def test_a_bad_mix_entry_is_one_clear_error(tasks, message):
    with pytest.raises(ValueError, match=message):
        make_mix(2, tasks=tasks)


def test_show_lists_a_gym_tasks_generator_parameters(capsys):
    from grpo_rewards.cli import main

    assert main(["show", "gym:mix"]) == 0
    out = capsys.readouterr().out
    assert "  tasks: list[{task, weight, params}] | None (default null)\n  allow_broken: bool (default false)" in out
    assert main(["show", "gym:puzzle24"]) == 0
    assert "known-broken scorer, kept out of gym:mix" in capsys.readouterr().out
