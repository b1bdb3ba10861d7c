"""The conventions graders disagree on, each a parameter of math.accuracy with a documented default."""

from __future__ import annotations

import pytest

from grpo_rewards_math import make_accuracy
from grpo_rewards_math.correctness import Accuracy
from grpo_rewards_math.extract import extract_answer


def _value(completion: str, gold: str, **params: object) -> float | None:
    return Accuracy(**params)(completion, solution=gold)[0]


@pytest.mark.parametrize(("completion", "gold"), [
    (r"\boxed{-5.5°C}", "-5.5"),
    ("The temperature was -5.5°C.", "-5.5"),
    (r"\boxed{30^\circ inches}", "30"),
    (r"\boxed{30^\circ}", "30"),
    (r"\boxed{12 \text{ inches}}", "12"),
    (r"\boxed{4\text{ cm}}", "4"),
    (r"\boxed{3.5 km/h}", "3.5"),
])
def test_a_unit_after_a_number_equals_the_bare_gold_by_default(completion, gold):
    assert _value(completion, gold) == 1.0


def test_trailing_units_match_refuses_a_unit_against_a_bare_gold():
    assert _value(r"\boxed{12 \text{ inches}}", "12", trailing_units="match") == 0.0
    assert _value(r"\boxed{12 \text{ inches}}", r"12 \text{ inches}", trailing_units="match") == 1.0
    assert _value(r"\boxed{12}", "12", trailing_units="match") == 1.0


def test_a_degree_sign_is_no_unit_word_under_trailing_units_match():
    assert _value(r"\boxed{-5.5°C}", "-5.5", trailing_units="match") == 1.0


def test_abs_tol_accepts_a_decimal_within_an_absolute_difference():
    assert _value(r"\boxed{0.3334}", r"\frac{1}{3}") == 0.0  # rel_tol 1e-6 alone
    assert _value(r"\boxed{0.3334}", r"\frac{1}{3}", abs_tol=1e-3) == 1.0
    assert _value(r"\boxed{0.335}", r"\frac{1}{3}", abs_tol=1e-3) == 0.0


def test_abs_tol_applies_to_irrational_golds_too():
    assert _value(r"\boxed{1.414}", r"\sqrt{2}", abs_tol=1e-3) == 1.0
    assert _value(r"\boxed{1.41}", r"\sqrt{2}", abs_tol=1e-3) == 0.0


def test_an_integer_gold_still_needs_the_exact_integer_under_abs_tol():
    assert _value(r"\boxed{12.0004}", "12", abs_tol=1e-3) == 0.0


def test_answer_position_first_reads_the_first_group_of_joined_boxes():
    text = r"so $x = \boxed{3}$, $y = \boxed{5}$; checking again gives \boxed{7}"
    assert extract_answer(text) == "7"
    assert extract_answer(text, answer_position="first") == "3, 5"


def test_answer_position_first_reads_the_first_answer_tag():
    text = "<answer>4</answer> on second thought <answer>5</answer>"
    assert extract_answer(text) == "5"
    assert extract_answer(text, answer_position="first") == "4"


def test_a_box_still_beats_an_answer_tag_when_the_first_answer_counts():
    assert extract_answer(r"<answer>4</answer> \boxed{6}", answer_position="first") == "6"


def test_answer_position_is_a_reward_parameter():
    assert _value(r"\boxed{3} no, \boxed{4}", "3") == 0.0
    assert _value(r"\boxed{3} no, \boxed{4}", "3", answer_position="first") == 1.0


@pytest.mark.parametrize(("completion", "boxed", "tag"), [
    (r"2 + 2 = \boxed{4}", 1.0, 0.0),
    ("<answer>4</answer>", 0.0, 1.0),
    ("The answer is 4.", 0.0, 0.0),
    ("4", 0.0, 0.0),
    (r"$4$", 0.0, 0.0),
])
def test_strict_answer_format_pays_only_the_requested_form(completion, boxed, tag):
    assert _value(completion, "4", answer_format="boxed") == boxed
    assert _value(completion, "4", answer_format="answer_tag") == tag
    assert _value(completion, "4") == 1.0  # the default reads every form


def test_strict_boxed_format_ignores_a_final_answer_phrase_after_the_box():
    assert _value(r"\boxed{4} ... Final answer: 5", "4", answer_format="boxed") == 1.0
    assert _value(r"\boxed{4} ... Final answer: 5", "4") == 0.0


@pytest.mark.parametrize(("gold", "pred"), [
    (r"1 < 2x \le 3", r"\frac{1}{2} < x \le \frac{3}{2}"),
    (r"1 < 2x \le 3", r"3 \ge 2x > 1"),
    (r"\frac{1}{2} < x \le \frac{3}{2}", r"1 < 2x \le 3"),
    (r"1 < -2x \le 3", r"-\frac{3}{2} \le x < -\frac{1}{2}"),
])
def test_a_chained_inequality_equals_its_solved_form(gold, pred):
    assert _value(rf"\boxed{{{pred}}}", gold) == 1.0


def test_a_chained_inequality_with_another_end_differs():
    assert _value(r"\boxed{\frac{1}{2} < x < \frac{3}{2}}", r"1 < 2x \le 3") == 0.0


def test_an_equation_equals_the_value_that_solves_it():
    assert _value(r"\boxed{15 - q - 6 = 0}", "q = 9") == 1.0
    assert _value(r"\boxed{q = 9}", "15 - q - 6 = 0") == 1.0
    assert _value(r"\boxed{15 - q - 6 = 0}", "q = 8") == 0.0


def test_an_equation_with_several_solutions_does_not_give_the_value():
    assert _value(r"\boxed{x^2 - 4 = 0}", "x = 2") == 0.0


def test_log_base_is_natural_by_default_and_configurable():
    assert _value(r"\boxed{\log 100}", "2") == 0.0
    assert _value(r"\boxed{\log 100}", "2", log_base=10) == 1.0
    assert _value(r"\boxed{\log 8}", "3", log_base="2") == 1.0
    assert _value(r"\boxed{\ln e}", "1", log_base=10) == 1.0  # \ln stays natural
    assert _value(r"\boxed{\log_{2} 8}", "3") == 1.0  # an explicit base stays


def test_an_unknown_log_base_is_a_clear_error():
    with pytest.raises(ValueError, match="log_base"):
        Accuracy(log_base=3)


def test_implicit_products_between_powers_are_read_as_a_product():
    assert _value(r"\boxed{2^6 3^5 5^4}", str(2**6 * 3**5 * 5**4)) == 1.0
    assert _value(r"\boxed{2^{6} 3^{5}}", str(2**6 * 3**5)) == 1.0


def test_two_bare_numbers_side_by_side_stay_unreadable():
    assert _value(r"\boxed{2 3}", "6") == 0.0


def test_a_stray_trailing_backslash_is_read_over():
    assert _value("The answer is 185\\", "185") == 1.0
    assert _value("<answer>185\\</answer>", "185") == 1.0


def test_plain_deep_parentheses_and_long_sums_are_decided_right():
    assert _value(r"\boxed{" + "(" * 300 + "7" + ")" * 300 + "}", "7") == 1.0
    assert _value(r"\boxed{" + "+".join(["1"] * 3000) + "}", "3000") == 1.0
    assert _value(r"\boxed{" + "+".join(["1"] * 3000) + "}", "2999") == 0.0


def test_conventions_are_reward_set_parameters():
    reward = make_accuracy(abs_tol=1e-3, answer_format="boxed", answer_position="first", trailing_units="match",
                           log_base=10)
    assert reward(completions=[r"\boxed{3} then \boxed{9}", "3"], solution=[r"\log 1000", "3"]) == [1.0, 0.0]
