"""Every format reward on its hack corpus (grpo_rewards_format.hacks): exact scores, both completion formats.

The corpus gives, per entry and reward, the most the reward may pay; for the format rewards that
bound is exact, so these tests check equality. A few real answers (controls) are scored beside
it, so a reward that pays nothing at all cannot pass.
"""

from __future__ import annotations

import pickle

import pytest

import grpo_rewards
import grpo_rewards_format as fmt
from grpo_rewards.hacks import read_corpus, run_hacks
from grpo_rewards_format.hacks import REGEX_PATTERN, corpus

REWARDS = {
    "format.think_answer": fmt.think_answer,
    "format.think": fmt.think,
    "format.tag_count": fmt.tag_count,
    "format.boxed": fmt.boxed,
    "format.regex": fmt.make_regex(REGEX_PATTERN),
    "format.reasoning_steps": fmt.reasoning_steps,
    "format.repetition": fmt.repetition,
    "format.xml_fields": fmt.xml_fields,
}
HUGE_REPEATS = 52_632  # "I add two and two. " (19 chars) this many times: just over 1 MB
_HUGE_WORDS = 1 + 5 * HUGE_REPEATS + 4  # "<think>", 5 per repeat, 4 closing words
CONTROLS = {
    "good": ("<think>\nStep 1: 2 + 2 = 4.\nStep 2: check: 4 - 2 = 2.\n</think>\n<answer>\n\\boxed{4}\n</answer>",
             dict.fromkeys(REWARDS, 1.0) | {"format.reasoning_steps": 2 / 3, "format.repetition": 0.0}),
    "good_inline": ("<think>2 + 2 = 4</think> <answer>\\boxed{4}</answer>",
                    dict.fromkeys(REWARDS, 1.0) | {"format.reasoning_steps": 0.0, "format.repetition": 0.0}),
    "huge_good": ("<think>\n" + "I add two and two. " * HUGE_REPEATS + "\n</think>\n<answer>\n\\boxed{4}\n</answer>",
                  dict.fromkeys(REWARDS, 1.0) | {"format.reasoning_steps": 0.0,
                                                 "format.repetition": -1.0 * (1.0 - 10 / (_HUGE_WORDS - 2)),
                                                 # a user pattern reads at most max_chars (100 000) characters
                                                 "format.regex": 0.0}),
}
ENTRIES = {e["name"]: e for e in corpus()}
CASES = [(reward, name) for reward in REWARDS for name in ENTRIES]


def _as_conversation(completion):
    return [{"role": "assistant", "content": completion}] if isinstance(completion, str) else completion


def test_the_corpus_is_valid_and_gives_a_bound_for_every_format_reward():
    hacks = read_corpus(corpus, "format")
    assert len(hacks) == len(ENTRIES) > 40
    assert all(set(h.max_pay) == set(REWARDS) for h in hacks)


@pytest.mark.parametrize(("reward", "name"), CASES)
def test_string_completion_pays_exactly_its_bound(reward, name):
    entry = ENTRIES[name]
    assert REWARDS[reward](prompts=[entry["prompt"]], completions=[entry["completion"]]) == [entry["max_pay"][reward]]


@pytest.mark.parametrize(("reward", "name"), CASES)
def test_conversational_completion_pays_the_same(reward, name):
    entry = ENTRIES[name]
    prompt = [{"role": "user", "content": entry["prompt"]}]
    values = REWARDS[reward](prompts=[prompt], completions=[_as_conversation(entry["completion"])])
    assert values == [entry["max_pay"][reward]]


@pytest.mark.parametrize(("reward", "control"), [(r, c) for r in REWARDS for c in CONTROLS])
def test_real_answers_are_still_paid(reward, control):
    text, expected = CONTROLS[control]
    assert REWARDS[reward](prompts=[None], completions=[text]) == [expected[reward]]


@pytest.mark.parametrize("reward", list(REWARDS))
def test_a_whole_batch_scores_like_its_samples(reward):
    names = [n for n in ENTRIES if not n.startswith("huge")]
    values = REWARDS[reward](prompts=[None] * len(names), completions=[ENTRIES[n]["completion"] for n in names])
    assert values == [ENTRIES[n]["max_pay"][reward] for n in names]


@pytest.mark.parametrize("reward", list(REWARDS))
def test_check_hacks_finds_no_overpaid_entry_through_the_registry(reward):
    report = run_hacks(reward, registry=grpo_rewards.load_registry())
    assert len(report.results) == len(ENTRIES)
    assert [r.line() for r in report.overpaid] == []


@pytest.mark.parametrize("reward", list(REWARDS))
def test_reward_survives_a_pickle_round_trip_with_its_name_and_scores(reward):
    clone = pickle.loads(pickle.dumps(REWARDS[reward]))
    assert clone.__name__ == reward
    names = ["nested_tags", "truncated_in_box", "blank_think_hangul_filler"]
    values = clone(prompts=[None] * 3, completions=[ENTRIES[n]["completion"] for n in names])
    assert values == [ENTRIES[n]["max_pay"][reward] for n in names]
