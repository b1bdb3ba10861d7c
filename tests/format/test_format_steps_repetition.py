"""format.reasoning_steps and format.repetition."""

from __future__ import annotations

import pytest

import grpo_rewards_format as fmt
from grpo_rewards_format import ReasoningSteps, Repetition


def test_each_kind_of_step_marker_counts():
    text = "Step 1: a\n2. b\n3) c\n- d\n* e\n• f\nFirst, g\nthen, h\nFINALLY, i"
    assert ReasoningSteps(full_credit_steps=9)(text) == 1.0
    assert ReasoningSteps(full_credit_steps=10)(text) == 0.9


def test_markers_without_text_or_in_the_middle_of_a_line_do_not_count():
    assert ReasoningSteps()("Step 1:\n-\nWe had 2. Then 3.\n4 - 2 = 2") == 0.0


def test_the_step_count_is_capped_at_full_credit():
    assert ReasoningSteps(full_credit_steps=2)("1. a\n2. b\n3. c\n4. d") == 1.0


def test_repeating_one_step_line_counts_once():
    assert ReasoningSteps()("- add\n- add\n- add\n- carry") == 2 / 3


def test_step_lines_inside_code_blocks_do_not_count():
    assert ReasoningSteps()("```\n1. a\n2. b\n3. c\n```\n") == 0.0


def test_full_credit_steps_must_be_positive():
    with pytest.raises(ValueError):
        ReasoningSteps(full_credit_steps=0)


def test_repetition_is_zero_without_repeated_ngrams_and_for_short_texts():
    assert Repetition()("one two three four") == 0.0
    assert Repetition()("again again") == 0.0


def test_repetition_penalty_is_the_share_of_repeated_ngrams_times_max_penalty():
    # 6 words, bigrams: (a b) (b a) (a b) (b a) (a b): 2 distinct of 5
    assert Repetition(ngram_size=2, max_penalty=-0.5)("a b a b a b") == -0.5 * (1 - 2 / 5)


def test_repetition_ignores_case():
    assert Repetition(ngram_size=1)("Yes yes YES") == -(1 - 1 / 3)


def test_repetition_over_tokens_reads_completion_ids():
    reward = fmt.make_repetition(unit="tokens", ngram_size=2)
    values = reward(prompts=[None, None], completions=["x", "y"], completion_ids=[[5, 5, 5, 5], [1, 2, 3]])
    assert values == [-(1 - 1 / 3), 0.0]


def test_repetition_over_tokens_without_ids_is_not_applicable():
    assert Repetition(unit="tokens")("a a a a") is None


@pytest.mark.parametrize("params", [{"max_penalty": 0.5}, {"ngram_size": 0}, {"unit": "chars"}])
def test_bad_repetition_parameters_are_rejected(params):
    with pytest.raises(ValueError):
        Repetition(**params)


def test_step_lines_whose_text_is_blank_do_not_count():
    assert ReasoningSteps()("Step 1: \u3164\nStep 2: \u2800\nStep 3: \u200b\n4. \x00") == 0.0


def test_step_lines_that_differ_only_in_invisible_characters_count_once():
    assert ReasoningSteps()("- add\u200b\n- add\u200b\u200b\n- ADD\u2060") == 1 / 3


def test_the_scan_bound_is_a_parameter_and_running_past_it_is_a_labelled_outcome():
    logged: dict[str, float] = {}
    reward = fmt.make_reasoning_steps(scan_timeout=0.01)
    values = reward(prompts=[None, None], completions=["1. add\n" * 400_000, "1. a\n2. b\n3. c"],
                    log_metric=logged.__setitem__)
    assert values == [0.0, 1.0]
    assert logged["outcomes/format.reasoning_steps/scan_timeout"] == 1.0


def test_the_scan_bound_defaults_to_one_second_and_is_validated():
    assert ReasoningSteps().scan_timeout == 1.0
    with pytest.raises(ValueError):
        ReasoningSteps(scan_timeout=0)


def test_repetition_counts_repeats_that_differ_only_in_invisible_characters():
    text = " ".join("the answer is four" + "\u200b" * i for i in range(50))
    assert Repetition()(text) == -(1 - 4 / 198)


def test_repetition_reads_blank_characters_as_spaces_and_fullwidth_letters_as_letters():
    assert Repetition(ngram_size=2)("ａ\u2800b a b") == Repetition(ngram_size=2)("a b a b")


def test_a_ten_megabyte_list_of_distinct_steps_gets_full_credit_without_reaching_the_bound():
    text = "".join(f"{i}. step number {i}\n" for i in range(600_000))  # over 10 MB
    assert len(text) > 10_000_000
    assert ReasoningSteps(scan_timeout=0.5)(text) == 1.0
