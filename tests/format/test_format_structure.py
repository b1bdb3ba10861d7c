"""think_answer, think, tag_count and xml_fields: the behaviour each parameter controls."""

from __future__ import annotations

import pytest

from grpo_rewards_format import TagCount, Think, ThinkAnswer, XmlFields

OPEN_R1_LAYOUT = "<think>\n2 + 2 = 4\n</think>\n<answer>\n4\n</answer>"


def test_strict_think_answer_accepts_whitespace_around_and_between_the_blocks():
    assert ThinkAnswer()("\n  <think>2 + 2 = 4</think>\n\n<answer>4</answer>\n") == 1.0


def test_strict_think_answer_rejects_text_before_between_or_after_the_blocks():
    score = ThinkAnswer()
    assert score("Sure. <think>x</think><answer>4</answer>") == 0.0
    assert score("<think>x</think> so <answer>4</answer>") == 0.0
    assert score("<think>x</think><answer>4</answer> Done.") == 0.0


def test_strict_think_answer_without_outer_whitespace_rejects_a_trailing_newline():
    assert ThinkAnswer(outer_whitespace=False)("<think>x</think><answer>4</answer>\n") == 0.0
    assert ThinkAnswer(outer_whitespace=False)("<think>x</think><answer>4</answer>") == 1.0


def test_think_answer_rejects_blocks_in_the_wrong_order():
    assert ThinkAnswer()("<answer>4</answer><think>x</think>") == 0.0
    assert ThinkAnswer(strict=False)("<answer>4</answer><think>x</think>") == 0.0


def test_think_answer_rejects_an_empty_reasoning_block_unless_allowed():
    assert ThinkAnswer()("<think> </think><answer>4</answer>") == 0.0
    assert ThinkAnswer(allow_empty_think=True)("<think> </think><answer>4</answer>") == 1.0


def test_think_answer_with_newlines_requires_open_r1_layout():
    assert ThinkAnswer(newlines=True)(OPEN_R1_LAYOUT) == 1.0
    assert ThinkAnswer(newlines=True)("<think>2 + 2 = 4</think><answer>4</answer>") == 0.0
    assert ThinkAnswer(newlines=True)(OPEN_R1_LAYOUT.replace("</think>\n<answer>", "</think>\n\n<answer>")) == 0.0


def test_soft_think_answer_ignores_tags_quoted_in_code_but_strict_counts_them():
    text = "<think>I would write ```<think>``` here</think><answer>4</answer>"
    assert ThinkAnswer(strict=False)(text) == 1.0
    assert ThinkAnswer(strict=True)(text) == 0.0


def test_think_answer_uses_the_configured_tag_names():
    text = "<reasoning>2 + 2 = 4</reasoning><final>4</final>"
    assert ThinkAnswer(think_tag="reasoning", answer_tag="final")(text) == 1.0
    assert ThinkAnswer()(text) == 0.0


@pytest.mark.parametrize("params", [
    {"think_tag": "a b"}, {"answer_tag": ""}, {"think_tag": "x", "answer_tag": "x"}, {"strict": "yes"},
    {"answer_tag": "<answer>"},
])
def test_think_answer_rejects_bad_parameters(params):
    with pytest.raises(ValueError):
        ThinkAnswer(**params)


def test_think_requires_the_reasoning_block_at_the_start():
    assert Think()("Let me think. <think>x</think> 4") == 0.0
    assert Think()("  \n<think>x</think> 4") == 1.0
    assert Think(leading_whitespace=False)("  \n<think>x</think> 4") == 0.0


def test_think_does_not_skip_a_code_block_before_the_reasoning_block():
    assert Think()("```\nprint(1)\n```<think>x</think> 4") == 0.0


def test_think_rejects_a_second_closing_tag():
    assert Think()("<think>x</think> 4 </think>") == 0.0


def test_think_requires_an_answer_after_the_block_unless_told_not_to():
    assert Think()("<think>x</think>  \n") == 0.0
    assert Think(require_answer=False)("<think>x</think>") == 1.0


def test_think_rejects_empty_reasoning():
    assert Think()("<think>\n\n</think>4") == 0.0


def test_think_with_the_opening_tag_in_the_prompt_scores_the_closing_tag_only():
    score = Think(opening_in_prompt=True)
    assert score("2 + 2 = 4\n</think>\n4") == 1.0
    assert score("<think>2 + 2 = 4</think>4") == 0.0
    assert score("2 + 2 = 4, so 4") == 0.0


def test_tag_count_gives_a_quarter_per_tag_present_once():
    assert TagCount()("<think>x</think> 4") == 0.5
    assert TagCount()("<think>x</think><answer>4") == 0.75


def test_tag_count_scores_repeated_blocks_below_one_clean_block():
    clean = TagCount()("<think>x</think><answer>4</answer>")
    repeated = TagCount()("<think>x</think><answer>4</answer>" * 2)
    assert (clean, repeated) == (1.0, 0.0)


def test_tag_count_uses_the_configured_tags():
    assert TagCount(tags=["reasoning", "answer", "check"])("<reasoning>x</reasoning><answer>4</answer>") == 4 / 6


def test_tag_count_rejects_an_empty_or_repeated_tag_list():
    with pytest.raises(ValueError):
        TagCount(tags=[])
    with pytest.raises(ValueError):
        TagCount(tags=["think", "think"])


def test_xml_fields_gives_the_share_of_fields_present():
    fields = XmlFields(fields=["think", "answer", "confidence"])
    assert fields("<think>x</think><answer>4</answer>") == 2 / 3


def test_xml_fields_halves_the_score_for_each_broken_rule():
    assert XmlFields()("<answer>4</answer> and <think>x</think>") == 0.25


def test_xml_fields_penalty_is_a_parameter():
    assert XmlFields(penalty=0.0)("<think>x</think> extra <answer>4</answer>") == 0.0
    assert XmlFields(penalty=1.0)("<answer>4</answer> extra <think>x</think>") == 1.0


def test_xml_fields_reads_a_field_containing_other_tags_as_one_field():
    assert XmlFields()("<think>I will put <answer> later</think><answer>4</answer>") == 1.0


def test_xml_fields_rejects_a_penalty_outside_zero_to_one():
    with pytest.raises(ValueError):
        XmlFields(penalty=2.0)


def test_invisible_characters_do_not_make_a_block_non_empty():
    zero_width = "\u200b\ufeff"
    assert ThinkAnswer()(f"<think>x</think><answer>{zero_width}</answer>") == 0.0
    assert Think()(f"<think>{zero_width}</think>4") == 0.0
    assert XmlFields()(f"<think>x</think><answer> {zero_width} </answer>") == 0.5
