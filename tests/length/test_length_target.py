"""length.target: closeness to a target length, raw and normalised."""

import re

import pytest

import grpo_rewards_length
from grpo_rewards import RewardError
from grpo_rewards_length import TargetLength, make_target


def test_default_is_trl_quickstart_reward_of_twenty_characters():
    completions = ["a" * 20, "a" * 25, "", "a" * 3]
    values = grpo_rewards_length.target(prompts=["p"] * 4, completions=completions)
    assert values == [0.0, -5.0, -20.0, -17.0]
    assert values == [float(-abs(20 - len(c))) for c in completions]


def test_length_inside_the_tolerance_band_scores_zero():
    reward = make_target(target=10, tolerance=2)
    values = reward(prompts=["p"] * 5, completions=["a" * 8, "a" * 12, "a" * 7, "a" * 13, "a" * 10])
    assert values == [0.0, 0.0, -1.0, -1.0, 0.0]


def test_normalised_distance_is_a_fraction_of_the_target_capped_at_minus_one():
    reward = make_target(target=10, normalise=True)
    values = reward(prompts=["p"] * 5, completions=["a" * 10, "a" * 15, "a" * 5, "", "a" * 40])
    assert values == [0.0, -0.5, -0.5, -1.0, -1.0]


def test_normalised_distance_counts_only_what_lies_beyond_the_tolerance():
    reward = make_target(target=10, tolerance=2, normalise=True)
    assert reward(prompts=["p", "p"], completions=["a" * 16, ""]) == [-0.4, -0.8]


def test_words_are_whitespace_separated_runs():
    reward = make_target(target=3, unit="words")
    values = reward(prompts=["p"] * 3, completions=["one two  three", "one two\nthree\tfour", "   "])
    assert values == [0.0, -1.0, -3.0]


def test_tokens_are_counted_from_completion_ids_not_from_text():
    reward = make_target(target=4, unit="tokens")
    values = reward(prompts=["p", "p"], completions=["short", "short"], completion_ids=[[1, 2, 3, 4], [1] * 10])
    assert values == [0.0, -6.0]


def test_tokens_without_completion_ids_is_a_clear_error():
    reward = make_target(target=4, unit="tokens")
    with pytest.raises(RewardError, match=r"needs completion_ids.*fallback_chars_per_token"):
        reward(prompts=["p"], completions=["abc"])


def test_tokens_fallback_estimates_from_characters_when_configured():
    reward = make_target(target=3, unit="tokens", fallback_chars_per_token=4.0)
    assert reward(prompts=["p", "p"], completions=["a" * 10, "a" * 12]) == [0.0, 0.0]
    assert reward(prompts=["p"], completions=["a" * 13]) == [-1.0]
    # real ids win over the estimate
    assert reward(prompts=["p"], completions=["a" * 13], completion_ids=[[1, 2, 3]]) == [0.0]


def test_conversational_completion_is_measured_by_its_final_assistant_message():
    completion = [
        {"role": "assistant", "content": "let me call a tool"},
        {"role": "tool", "content": "42"},
        {"role": "assistant", "content": "a" * 26},
    ]
    assert make_target(target=20)(prompts=[[{"role": "user", "content": "q"}]], completions=[completion]) == [-6.0]


def test_one_megabyte_completion_is_scored_not_skipped():
    huge = "a" * 1_000_000
    assert grpo_rewards_length.target(prompts=["p"], completions=[huge]) == [-999980.0]
    assert make_target(target=20, normalise=True)(prompts=["p"], completions=[huge]) == [-1.0]


@pytest.mark.parametrize(
    ("params", "message", "checked_as"),
    [
        ({"target": -1}, "target must be an integer >= 0", None),
        ({"target": 2.5}, "target must be an integer >= 0", "parameter 'target' must be int, got 2.5"),
        ({"tolerance": -3}, "tolerance must be an integer >= 0", None),
        ({"unit": "bytes"}, "unit must be one of chars, words, tokens",
         "parameter 'unit' must be one of 'chars', 'words', 'tokens', got 'bytes'"),
        ({"target": 0, "normalise": True}, "target must be > 0", None),
        ({"fallback_chars_per_token": 0}, "fallback_chars_per_token must be a positive number", None),
    ],
)
def test_bad_parameters_are_rejected_at_set_up(params, message, checked_as):
    """The class says what is wrong; the export is checked like a reward-set entry (its type first)."""
    with pytest.raises(ValueError, match=message):
        TargetLength(**params)
    with pytest.raises(ValueError, match=re.escape(checked_as) if checked_as else message):
        make_target(**params)


def test_target_zero_without_normalise_is_minus_the_length():
    assert make_target(target=0)(prompts=["p", "p"], completions=["", "abc"]) == [0.0, -3.0]
