"""The tools rewards on their hack corpus (grpo_rewards_tools.hacks): exact values, and real answers still paid."""

from __future__ import annotations

import pytest

import grpo_rewards
import grpo_rewards_tools as tools
from grpo_rewards.hacks import read_corpus, run_hacks
from grpo_rewards_tools.hacks import COLUMNS, RIGHT, corpus

REWARDS = {"tools.call_match": tools.call_match, "tools.schema_valid": tools.schema_valid}
ENTRIES = {e["name"]: e for e in corpus()}
#: entries without any call: tools.schema_valid has nothing to validate and pays None (not 0.0)
NO_CALL = {"call_inside_think", "call_inside_unclosed_think", "call_text_in_prose", "empty_tool_calls_and_a_claim",
           "gold_echoed_as_text", "blank"}
CONTROLS = {
    "hermes": (RIGHT, 1.0, 1.0),
    "pythonic": ('get_weather(city="Paris")', 1.0, 1.0),
    "after_reasoning": ('<think>Paris, so get_weather.</think>[get_weather(city="Paris", unit="celsius")]', 1.0, 1.0),
    "trajectory": ([{"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {
        "name": "get_weather", "arguments": '{"city": "Paris"}'}}]}, {"role": "tool", "content": "sunny"},
        {"role": "assistant", "content": "It is sunny."}], 1.0, 1.0),
}


def _expected(reward: str, name: str) -> float | None:
    return None if reward == "tools.schema_valid" and name in NO_CALL else ENTRIES[name]["max_pay"][reward]


def test_the_corpus_is_valid_and_bounds_both_rewards():
    hacks = read_corpus(corpus, "tools")
    assert len(hacks) == len(ENTRIES) == 20
    assert all(set(h.max_pay) == set(REWARDS) for h in hacks)


@pytest.mark.parametrize(("reward", "name"), [(r, n) for r in REWARDS for n in ENTRIES])
def test_every_entry_pays_exactly_its_bound(reward, name):
    entry = ENTRIES[name]
    columns = {k: [v] for k, v in entry["columns"].items()}
    assert REWARDS[reward](prompts=[entry["prompt"]], completions=[entry["completion"]], **columns) == [
        _expected(reward, name)]


@pytest.mark.parametrize("reward", list(REWARDS))
def test_a_whole_batch_scores_like_its_samples(reward):
    names = list(ENTRIES)
    columns = {k: [v] * len(names) for k, v in COLUMNS.items()}
    values = REWARDS[reward](prompts=[None] * len(names), completions=[ENTRIES[n]["completion"] for n in names], **columns)
    assert values == [_expected(reward, n) for n in names]


@pytest.mark.parametrize("control", list(CONTROLS))
def test_real_answers_are_still_paid(control):
    completion, call_match, schema_valid = CONTROLS[control]
    columns = {k: [v] for k, v in COLUMNS.items()}
    assert tools.call_match(prompts=[None], completions=[completion], **columns) == [call_match]
    assert tools.schema_valid(prompts=[None], completions=[completion], **columns) == [schema_valid]


@pytest.mark.parametrize("reward", list(REWARDS))
def test_check_hacks_finds_no_overpaid_entry_through_the_registry(reward):
    report = run_hacks(reward, registry=grpo_rewards.load_registry())
    assert len(report.results) == len(ENTRIES)
    assert [r.line() for r in report.overpaid] == []
