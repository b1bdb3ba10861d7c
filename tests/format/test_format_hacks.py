"""Every format reward on the hack and pathological fixture set: exact scores, both completion formats."""

from __future__ import annotations

import pickle

import pytest
from format_hacks import EXPECTED, FIXTURES, REGEX_PATTERN, TEXT_FIXTURES, as_conversation

import grpo_rewards_format as fmt

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
CASES = [(reward, fixture) for reward in REWARDS for fixture in FIXTURES]


def test_every_reward_has_an_expected_score_for_every_fixture():
    assert set(EXPECTED) == set(REWARDS)
    for name, scores in EXPECTED.items():
        assert set(scores) == set(FIXTURES), name


@pytest.mark.parametrize(("reward", "fixture"), CASES)
def test_string_completion_gets_its_expected_score(reward, fixture):
    assert REWARDS[reward](prompts=["2 + 2?"], completions=[FIXTURES[fixture]]) == [EXPECTED[reward][fixture]]


@pytest.mark.parametrize(("reward", "fixture"), CASES)
def test_conversational_completion_gets_the_same_score(reward, fixture):
    completion = as_conversation(FIXTURES[fixture])
    prompt = [{"role": "user", "content": "2 + 2?"}]
    assert REWARDS[reward](prompts=[prompt], completions=[completion]) == [EXPECTED[reward][fixture]]


@pytest.mark.parametrize("reward", list(REWARDS))
def test_a_whole_batch_scores_like_its_samples(reward):
    completions = [FIXTURES[f] for f in TEXT_FIXTURES if not f.startswith("huge")]
    expected = [EXPECTED[reward][f] for f in TEXT_FIXTURES if not f.startswith("huge")]
    assert REWARDS[reward](prompts=[None] * len(completions), completions=completions) == expected


@pytest.mark.parametrize("reward", list(REWARDS))
def test_reward_survives_a_pickle_round_trip_with_its_name_and_scores(reward):
    clone = pickle.loads(pickle.dumps(REWARDS[reward]))
    assert clone.__name__ == reward
    texts = [FIXTURES["good"], FIXTURES["nested_tags"], FIXTURES["truncated_in_box"]]
    assert clone(prompts=[None] * 3, completions=texts) == [EXPECTED[reward][f] for f in
                                                            ("good", "nested_tags", "truncated_in_box")]
