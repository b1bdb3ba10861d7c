r"""format.boxed: one balanced, non-empty \boxed{} as the final answer."""

from __future__ import annotations

import pytest

import grpo_rewards_format as fmt
from grpo_rewards_format import Boxed


def test_default_boxed_reward_wants_exactly_one_non_empty_balanced_box():
    texts = [r"\boxed{4}", r"\boxed{4} \boxed{4}", r"\boxed{}", r"\boxed{4", "4"]
    assert fmt.boxed(prompts=[None] * 5, completions=texts) == [1.0, 0.0, 0.0, 0.0, 0.0]


def test_braces_inside_the_box_must_balance():
    assert Boxed()(r"\boxed{\frac{1}{2}}") == 1.0
    assert Boxed()(r"\boxed{\frac{1}{2}") == 0.0


def test_escaped_braces_do_not_close_the_box():
    assert Boxed()(r"\boxed{\{1, 2\}}") == 1.0
    assert Boxed()(r"\boxed{1\}") == 0.0


def test_a_space_before_the_brace_still_makes_a_box_but_another_command_does_not():
    assert Boxed()(r"\boxed {4}") == 1.0
    assert Boxed()(r"\boxedanswer{4}") == 0.0


def test_a_box_of_whitespace_is_empty_unless_empty_boxes_are_allowed():
    assert Boxed()(r"\boxed{  }") == 0.0
    assert Boxed(allow_empty=True)(r"\boxed{  }") == 1.0


def test_without_exactly_one_the_last_box_decides():
    assert Boxed(exactly_one=False)(r"\boxed{1} then \boxed{2}") == 1.0
    assert Boxed(exactly_one=False)(r"\boxed{1} then \boxed{}") == 0.0


def test_last_chars_requires_the_box_to_start_near_the_end():
    text = r"\boxed{4}" + " and that is all." * 10  # the box starts 179 characters from the end
    assert Boxed(last_chars=179)(text) == 1.0
    assert Boxed(last_chars=178)(text) == 0.0


@pytest.mark.parametrize("params", [{"last_chars": 0}, {"last_chars": 2.5}, {"exactly_one": 1}])
def test_bad_boxed_parameters_are_rejected(params):
    with pytest.raises(ValueError):
        Boxed(**params)


def test_a_megabyte_of_open_boxes_scores_zero():
    assert Boxed(exactly_one=False)("\\boxed{" * 150_000) == 0.0


def test_a_box_holding_only_invisible_characters_is_empty():
    assert Boxed()("\\boxed{\u200b}") == 0.0
