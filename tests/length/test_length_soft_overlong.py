"""length.soft_overlong: DAPO's soft overlong punishment."""

import pytest

import grpo_rewards_length
from grpo_rewards import RewardError
from grpo_rewards_length import SoftOverlong, make_soft_overlong


def _score(reward, lengths):
    return reward(prompts=["p"] * len(lengths), completions=["x"] * len(lengths),
                  completion_ids=[[7] * n for n in lengths])


def test_edges_of_the_buffer_and_beyond_max_length():
    reward = make_soft_overlong(max_length=100, buffer=20)
    assert _score(reward, [0, 79, 80, 81, 90, 99, 100, 101, 10_000]) == [
        0.0, 0.0, 0.0, -0.05, -0.5, -0.95, -1.0, -1.0, -1.0]


def test_default_matches_trl_default_generation_limit_of_512_with_a_128_buffer():
    assert _score(grpo_rewards_length.soft_overlong, [384, 448, 512, 513]) == [0.0, -0.5, -1.0, -1.0]


def test_same_values_as_trl_get_soft_overlong_punishment_on_every_length():
    from trl.rewards import get_soft_overlong_punishment

    lengths = list(range(0, 131))
    ids = [[1] * n for n in lengths]
    ours = make_soft_overlong(max_length=100, buffer=20)(prompts=["p"] * len(ids), completions=["x"] * len(ids),
                                                         completion_ids=ids)
    assert ours == get_soft_overlong_punishment(max_completion_len=100, soft_punish_cache=20)(completion_ids=ids)


def test_zero_buffer_is_a_hard_cliff_at_max_length():
    assert _score(make_soft_overlong(max_length=100, buffer=0), [0, 100, 101]) == [0.0, 0.0, -1.0]


def test_chars_unit_measures_the_text():
    reward = make_soft_overlong(max_length=100, buffer=20, unit="chars")
    assert reward(prompts=["p"] * 3, completions=["a" * 80, "a" * 90, [{"role": "assistant", "content": "a" * 150}]]) \
        == [0.0, -0.5, -1.0]


def test_tokens_without_completion_ids_is_a_clear_error_naming_the_fix():
    with pytest.raises(RewardError, match=r"length\.soft_overlong measures tokens and needs completion_ids"):
        grpo_rewards_length.soft_overlong(prompts=["p"], completions=["abc"])


def test_tokens_fallback_estimates_ceil_of_chars_over_ratio():
    reward = make_soft_overlong(max_length=100, buffer=20, fallback_chars_per_token=4)
    # 359 chars -> ceil(89.75) = 90 tokens; 400 -> 100; 401 -> 101
    assert reward(prompts=["p"] * 3, completions=["a" * 359, "a" * 400, "a" * 401]) == [-0.5, -1.0, -1.0]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"max_length": 100, "buffer": 100}, r"max_length \(100\) must be greater than buffer \(100\)"),
        ({"max_length": 50, "buffer": 100}, r"max_length \(50\) must be greater than buffer \(100\)"),
        ({"max_length": 100, "buffer": -1}, "buffer must be an integer >= 0"),
        ({"max_length": 0, "buffer": 0}, "max_length must be an integer >= 1"),
        ({"unit": "lines"}, "unit must be one of"),
    ],
)
def test_bad_parameters_are_rejected_at_set_up(params, message):
    with pytest.raises(ValueError, match=message):
        SoftOverlong(**params)
