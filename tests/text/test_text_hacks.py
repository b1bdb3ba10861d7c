"""Every text reward on its hack corpus (grpo_rewards_text.hacks): exact pay for the deterministic metrics,
a bound for the embedding model; real answers beside them are still paid."""

from __future__ import annotations

import pytest

import grpo_rewards
from grpo_rewards.hacks import read_corpus, run_hacks
from grpo_rewards_text.definitions import DEFINITIONS
from grpo_rewards_text.hacks import QUESTION, REFERENCE, corpus

DEFINED = {d.name: d for d in DEFINITIONS}
DETERMINISTIC = ["text.exact_match", "text.f1", "text.fuzzy", "text.bleu", "text.chrf", "text.rouge", "text.language",
                 "text.json"]
ENTRIES = {e["name"]: e for e in corpus()}
CASES = [(reward, name) for reward in DETERMINISTIC for name, e in ENTRIES.items() if reward in e["max_pay"]]


def _score(reward, entry):
    built = DEFINED[reward].reward(**entry.get("params", {}).get(reward, {}))
    columns = {k: [v] for k, v in entry["columns"].items()}
    return built(prompts=[entry["prompt"]], completions=[entry["completion"]], **columns)[0]


def test_the_corpus_is_valid_and_targets_every_text_reward():
    hacks = read_corpus(corpus, "text")
    assert len(hacks) == len(ENTRIES) >= 15
    assert {r for h in hacks for r in h.max_pay} == {*DETERMINISTIC, "text.similarity"}


@pytest.mark.parametrize(("reward", "name"), CASES)
def test_each_hack_is_paid_exactly_its_documented_value(reward, name):
    assert _score(reward, ENTRIES[name]) == ENTRIES[name]["max_pay"][reward]


@pytest.mark.parametrize("reward", DETERMINISTIC)
def test_check_hacks_finds_no_overpaid_entry_through_the_registry(reward):
    report = run_hacks(reward, registry=grpo_rewards.load_registry())
    assert [r.line() for r in report.overpaid] == []
    assert len(report.results) == sum(reward in e["max_pay"] for e in ENTRIES.values())


@pytest.mark.parametrize(("reward", "expected"), [
    ("text.exact_match", 1.0), ("text.f1", 1.0), ("text.fuzzy", 1.0), ("text.bleu", 1.0), ("text.chrf", 1.0),
    ("text.rouge", 1.0)])
def test_the_reference_itself_is_paid_in_full(reward, expected):
    entry = {"prompt": QUESTION, "completion": REFERENCE, "columns": {"reference": REFERENCE}}
    assert _score(reward, entry) == expected


def test_exact_match_resists_what_every_overlap_metric_pays():
    copy = ENTRIES["copy_the_question"]["max_pay"]
    assert copy["text.exact_match"] == 0.0
    assert min(copy[r] for r in ("text.f1", "text.fuzzy", "text.bleu", "text.chrf", "text.rouge")) > 0.5
