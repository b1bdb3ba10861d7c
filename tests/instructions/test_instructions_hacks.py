"""Both rewards on their hack corpus (grpo_rewards_instructions.hacks): exact values, through the registry too."""

from __future__ import annotations

import pytest

import grpo_rewards
import grpo_rewards_instructions as ins
from grpo_rewards.hacks import read_corpus, run_hacks
from grpo_rewards_instructions.hacks import LIMIT, corpus

REWARDS = {"instructions.followed": ins.followed, "instructions.all_followed": ins.all_followed}
ENTRIES = {e["name"]: e for e in corpus()}


def test_the_corpus_is_valid_and_bounds_both_rewards():
    hacks = read_corpus(corpus, "instructions")
    assert len(hacks) == len(ENTRIES) == 27
    assert all(set(h.max_pay) == set(REWARDS) for h in hacks)


def test_the_entries_paid_in_full_are_the_documented_limits():
    paid = sorted(n for n, e in ENTRIES.items() if e["max_pay"]["instructions.followed"] == 1.0)
    assert all(LIMIT in ENTRIES[n]["note"] for n in paid)
    assert paid == ["bullets_empty", "capitals_off_topic", "digits_for_french", "empty_quotes", "end_phrase_only",
                    "json_empty_object", "keyword_stuffing", "placeholders_faked", "prompt_repeated_no_answer",
                    "title_only"]


@pytest.mark.parametrize(("reward", "name"), [(r, n) for r in REWARDS for n in ENTRIES])
def test_entry_pays_exactly_its_bound(reward, name):
    entry = ENTRIES[name]
    columns = {k: [v] for k, v in entry["columns"].items()}
    assert REWARDS[reward](prompts=[entry["prompt"]], completions=[entry["completion"]], **columns) == [
        entry["max_pay"][reward]]


@pytest.mark.parametrize("reward", list(REWARDS))
def test_check_hacks_finds_no_overpaid_entry_through_the_registry(reward):
    report = run_hacks(reward, registry=grpo_rewards.load_registry())
    assert len(report.results) == len(ENTRIES)
    assert [r.line() for r in report.overpaid] == []
