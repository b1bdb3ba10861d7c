"""length.group_relative: Kimi k1.5's group-relative length reward (batch form)."""

import pytest

import grpo_rewards_length
from grpo_rewards import RewardError
from grpo_rewards_length import make_group_relative

CHARS = make_group_relative(unit="chars")


def test_shortest_correct_gets_half_longest_gets_minus_half():
    values = CHARS(prompts=["p"] * 3, completions=["a", "aaa", "aaaaa"], correct=[1, 1, 1])
    assert values == [0.5, 0.0, -0.5]


def test_wrong_answers_are_capped_at_zero_but_keep_their_penalty():
    values = CHARS(prompts=["p"] * 4, completions=["a", "aaa", "aaaaa", "aa"], correct=[0, 0, 0, 1])
    assert values == [0.0, 0.0, -0.5, 0.25]


def test_all_equal_group_gets_zero_for_right_and_wrong_answers():
    assert CHARS(prompts=["p"] * 3, completions=["abc", "xyz", "123"], correct=[1, 0, 1]) == [0.0, 0.0, 0.0]


def test_one_element_group_gets_zero():
    assert CHARS(prompts=["p"], completions=["anything"], correct=[True]) == [0.0]


def test_several_interleaved_groups_are_scored_separately():
    values = CHARS(prompts=["p", "q", "p", "q", "r"], completions=["a", "aaaaaaaaa", "aaa", "aaa", "a"],
                   correct=[1, 1, 1, 1, 1])
    assert values == [0.5, -0.5, -0.5, 0.5, 0.0]


def test_conversational_prompts_are_grouped_by_content_not_identity():
    prompt_a = [{"role": "user", "content": "What is 2+2?"}]
    prompt_a_copy = [{"content": "What is 2+2?", "role": "user"}]
    prompt_b = [{"role": "user", "content": "What is 3+3?"}]
    completions = [[{"role": "assistant", "content": t}] for t in ("a", "aaa", "aaaaaaa")]
    values = CHARS(prompts=[prompt_a, prompt_a_copy, prompt_b], completions=completions, correct=[1, 1, 1])
    assert values == [0.5, -0.5, 0.0]


def test_unknown_correctness_gives_none_but_its_length_still_counts():
    values = CHARS(prompts=["p"] * 3, completions=["a", "aaa", "aaaaa"], correct=[1, 1, None])
    assert values == [0.5, 0.0, None]


def test_unreadable_completion_gives_none_and_is_left_out_of_the_group():
    values = CHARS(prompts=["p"] * 4, completions=["a", "aaa", None, [{"role": "user", "content": "x" * 99}]],
                   correct=[1, 1, 1, 1])
    assert values == [0.5, -0.5, None, None]


def test_default_unit_is_tokens_from_completion_ids():
    values = grpo_rewards_length.group_relative(
        prompts=["p"] * 3, completions=["long text here", "x", "y"], completion_ids=[[1], [1] * 3, [1] * 5],
        correct=[1, 1, 1])
    assert values == [0.5, 0.0, -0.5]


def test_tokens_without_completion_ids_is_a_clear_error():
    with pytest.raises(RewardError, match=r"length\.group_relative measures tokens and needs completion_ids"):
        grpo_rewards_length.group_relative(prompts=["p"], completions=["x"], correct=[1])


def test_a_missing_correctness_column_is_an_error_that_says_how_to_fill_it():
    with pytest.raises(RewardError, match=r"reads correctness from column 'correct'.*inputs: \{correct: math.accuracy\}"):
        CHARS(prompts=["p"], completions=["x"], solution=["4"])


def test_without_a_correctness_column_every_answer_counts_as_correct():
    reward = make_group_relative(unit="chars", correct_column=None)
    assert reward(prompts=["p"] * 3, completions=["a", "aaa", "aaaaa"]) == [0.5, 0.0, -0.5]


def test_without_prompts_the_whole_batch_is_one_group():
    assert CHARS(completions=["a", "aaa"], correct=[1, 1]) == [0.5, -0.5]


def test_a_group_split_across_calls_is_scored_against_each_part():
    # TRL scores each process's slice before gathering: a group of four split two and two
    whole = CHARS(prompts=["p"] * 4, completions=["a", "aaa", "aaaaa", "aaaaaaaaa"], correct=[1] * 4)
    first = CHARS(prompts=["p"] * 2, completions=["a", "aaa"], correct=[1] * 2)
    second = CHARS(prompts=["p"] * 2, completions=["aaaaa", "aaaaaaaaa"], correct=[1] * 2)
    assert whole == [0.5, 0.25, 0.0, -0.5]
    assert first + second == [0.5, -0.5, 0.5, -0.5]


def test_bad_parameters_are_rejected_at_set_up():
    with pytest.raises(ValueError, match="parameter 'unit' must be one of 'chars', 'words', 'tokens', got 'bytes'"):
        make_group_relative(unit="bytes")
    with pytest.raises(ValueError, match="correct_column must name a column or be None"):
        make_group_relative(correct_column="")
