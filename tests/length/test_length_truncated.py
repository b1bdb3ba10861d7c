"""length.truncated: penalty or multiplier for completions cut off at the generation limit."""

import math

import pytest

import grpo_rewards_length
from grpo_rewards import Reward, RewardError
from grpo_rewards_length import Truncated, make_truncated


def _score(reward, ids, **columns):
    return reward(prompts=["p"] * len(ids), completions=["x"] * len(ids), completion_ids=ids, **columns)


def test_default_penalises_completions_that_reach_512_tokens():
    assert _score(grpo_rewards_length.truncated, [[5] * 511, [5] * 512, [5] * 600]) == [0.0, -1.0, -1.0]


def test_a_completion_ending_in_eos_at_the_limit_is_finished():
    reward = make_truncated(max_length=4, eos_token_ids=[2, 0])
    assert _score(reward, [[5, 5, 5, 5], [5, 5, 5, 2], [5, 5, 5, 0], [5, 2], [5] * 6]) == [-1.0, 0.0, 0.0, 0.0, -1.0]


def test_eos_only_rule_is_trl_mask_truncated_completions():
    reward = make_truncated(max_length=None, eos_token_ids=[2])
    assert _score(reward, [[5, 5], [5, 2], [2], [5]]) == [-1.0, 0.0, 0.0, -1.0]


def test_empty_completion_is_not_truncated():
    assert _score(make_truncated(max_length=None, eos_token_ids=[2]), [[]]) == [0.0]


def test_penalty_is_configurable():
    assert _score(make_truncated(max_length=3, penalty=-0.25), [[1, 1, 1], [1]]) == [-0.25, 0.0]


def test_as_a_multiplier_it_scales_the_base_column_of_truncated_completions():
    reward = make_truncated(max_length=3, base_column="base", multiplier=0.5)
    values = _score(reward, [[1, 1, 1], [1], [1, 1, 1], [1, 1, 1]], base=[1.0, 1.0, None, -1.0])
    assert values == [0.5, 1.0, None, -0.5]


def test_default_multiplier_gives_no_credit_and_no_negative_zero():
    values = _score(make_truncated(max_length=3, base_column="base"), [[1, 1, 1]], base=[-1.0])
    assert values == [0.0]
    assert math.copysign(1.0, values[0]) == 1.0


def test_base_reward_values_are_taken_from_another_reward():
    def accuracy(prompts, completions, completion_ids=None, **kwargs):
        return [1.0 for _ in completions]

    reward = make_truncated(max_length=3, base=Reward(accuracy, metric="acc", form="batch"))
    assert _score(reward, [[1, 1, 1], [1, 2]]) == [0.0, 1.0]


def test_without_completion_ids_it_is_a_clear_error_unless_a_fallback_is_set():
    with pytest.raises(RewardError, match=r"length\.truncated measures tokens and needs completion_ids"):
        grpo_rewards_length.truncated(prompts=["p"], completions=["abc"])
    reward = make_truncated(max_length=4, fallback_chars_per_token=4)
    assert reward(prompts=["p", "p"], completions=["a" * 12, "a" * 13]) == [0.0, -1.0]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"max_length": None, "eos_token_ids": None}, "needs max_length, eos_token_ids or both"),
        ({"eos_token_ids": []}, "eos_token_ids must be a non-empty list"),
        ({"eos_token_ids": ["</s>"]}, "eos_token_ids must be a non-empty list"),
        ({"max_length": 0}, "max_length must be an integer >= 1"),
        ({"penalty": float("nan")}, "penalty must be a finite number"),
        ({"base_column": ""}, "base_column must name a column"),
    ],
)
def test_bad_parameters_are_rejected_at_set_up(params, message):
    with pytest.raises(ValueError, match=message):
        Truncated(**params)


def test_a_single_eos_id_is_accepted_as_an_int():
    assert Truncated(eos_token_ids=2).eos_token_ids == [2]
