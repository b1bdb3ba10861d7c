"""length.cosine: correctness-conditioned cosine length scaling."""

import math

import pytest

import grpo_rewards_length
from grpo_rewards import Reward, RewardError
from grpo_rewards_length import CosineLength, make_cosine


def _score(reward, lengths, correct, **kwargs):
    return reward(prompts=["p"] * len(lengths), completions=["x"] * len(lengths),
                  completion_ids=[[3] * n for n in lengths], correct=correct, **kwargs)


def test_correct_answers_run_from_max_at_length_zero_to_min_at_max_length():
    values = _score(make_cosine(max_length=100), [0, 50, 100], [True] * 3)
    assert values == [1.0, 0.75, 0.5]


def test_wrong_answers_run_from_min_at_length_zero_to_max_at_max_length():
    values = _score(make_cosine(max_length=100), [0, 50, 100], [False] * 3)
    assert values == [-1.0, -0.75, -0.5]


def test_past_max_length_the_cosine_is_clamped_and_does_not_wrap():
    # unclamped, cos(2 * pi) would bring a 200-token answer back to the length-0 value
    values = _score(make_cosine(max_length=100), [200, 200, 10_000], [True, False, True])
    assert values == [0.5, -0.5, 0.5]


def test_intermediate_length_follows_the_cosine():
    values = _score(make_cosine(max_length=100), [25], [True])
    assert values == [pytest.approx(0.5 + 0.25 * (1 + math.sqrt(0.5)), abs=1e-12)]
    assert values[0] == pytest.approx(0.9267766952966369, abs=1e-15)


def test_the_four_end_values_are_parameters():
    reward = make_cosine(max_length=10, min_value_wrong=-2.0, max_value_wrong=0.0,
                         min_value_correct=1.0, max_value_correct=3.0)
    assert _score(reward, [0, 10, 0, 10], [1, 1, 0, 0]) == [3.0, 1.0, -2.0, 0.0]


def test_unknown_correctness_gives_none():
    assert _score(make_cosine(max_length=100), [10, 10], [None, float("nan")]) == [None, None]


def test_correctness_values_bool_numbers_and_numpy_scalars():
    import numpy as np

    reward = make_cosine(max_length=100)
    values = _score(reward, [0] * 6, [True, 1, 1.0, 0.0, 0.5, np.bool_(True)])
    assert values == [1.0, 1.0, 1.0, -1.0, -1.0, 1.0]
    assert _score(make_cosine(max_length=100, correct_threshold=0.5), [0], [0.5]) == [1.0]


def test_a_string_correctness_value_is_an_error_naming_the_column():
    with pytest.raises(RewardError, match="column 'correct' must hold a bool, a number or None"):
        _score(make_cosine(max_length=100), [0], ["yes"])


def test_a_missing_correctness_column_is_an_error_naming_it():
    with pytest.raises(RewardError, match="needs dataset column\\(s\\) 'correct'"):
        grpo_rewards_length.cosine(prompts=["p"], completions=["x"], completion_ids=[[1]])


def test_correct_column_names_the_column_read():
    reward = make_cosine(max_length=100, correct_column="is_right")
    values = reward(prompts=["p", "p"], completions=["x", "x"], completion_ids=[[1] * 50] * 2, is_right=[1.0, 0.0])
    assert values == [0.75, -0.75]


def test_correctness_from_another_reward_object_is_computed_once_per_batch():
    calls = []

    def judge(prompts, completions, completion_ids=None, **kwargs):
        calls.append(len(completions))
        return [1.0 if c == "right" else 0.0 for c in completions]

    accuracy = Reward(judge, metric="judge", form="batch")
    cosine = make_cosine(max_length=100, correctness=accuracy)
    completions = ["right", "wrong"]
    ids = [[1] * 50, [1] * 50]
    assert accuracy(prompts=["p", "p"], completions=completions, completion_ids=ids) == [1.0, 0.0]
    assert cosine(prompts=["p", "p"], completions=completions, completion_ids=ids) == [0.75, -0.75]
    assert calls == [2]


def test_same_values_as_trl_get_cosine_scaled_reward_given_the_same_correctness(monkeypatch):
    import trl.rewards.accuracy_rewards as trl_accuracy

    lengths = [0, 1, 13, 50, 77, 99, 100, 101, 250, 1000]
    correct = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, None]
    monkeypatch.setattr(trl_accuracy, "accuracy_reward", lambda completions, solution, **kw: list(correct))
    ids = [[1] * n for n in lengths]
    completions = [[{"role": "assistant", "content": "x"}] for _ in lengths]
    theirs = trl_accuracy.get_cosine_scaled_reward(max_len=100)(completions, ["s"] * len(ids), ids)
    ours = make_cosine(max_length=100)(prompts=["p"] * len(ids), completions=completions, completion_ids=ids,
                                       correct=correct)
    assert ours == theirs


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"max_length": 0}, "max_length must be an integer >= 1"),
        ({"max_length": -5}, "max_length must be an integer >= 1"),
        ({"min_value_wrong": float("inf")}, "min_value_wrong must be a finite number"),
        ({"correct_column": ""}, "correct_column must name a column"),
        ({"unit": "pages"}, "unit must be one of"),
    ],
)
def test_bad_parameters_are_rejected_at_set_up(params, message):
    with pytest.raises(ValueError, match=message):
        CosineLength(**params)
