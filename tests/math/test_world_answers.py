"""math.accuracy on answers as the world writes them (issue 12): each case failed before the fix.

Every case runs through the public reward, extraction and comparison together: a completion, a
gold as a dataset holds it, and the value the reward must give.
"""

from __future__ import annotations

import pytest

from grpo_rewards_math import make_accuracy
from grpo_rewards_math.correctness import Accuracy
from grpo_rewards_math.equivalence import is_equal

REWARD = make_accuracy()

CASES = [
    # (category, completion, gold, value)
    ("prose latex", r"So the result is \frac{7}{4}", "7/4", 1.0),
    ("prose latex", r"So the result is \frac{7}{4}", "4", 0.0),
    ("prose latex", r"We get \frac{7}{4}.", r"\frac{7}{4}", 1.0),
    ("prose latex", r"so x = \sqrt{11}", r"\sqrt{11}", 1.0),
    ("prose latex", r"so x = \sqrt{11}", "11", 0.0),
    ("prose latex", "The value is sqrt(2)/2", r"\frac{\sqrt{2}}{2}", 1.0),
    ("prose latex", "The value is sqrt(2)/2", "2", 0.0),
    ("prose latex", "Final answer: the smallest $k$ is 17.", "17", 1.0),
    ("several boxes", r"\boxed{2}, \boxed{5}", "2, 5", 1.0),
    ("several boxes", r"\boxed{2}, \boxed{5}", r"\boxed{2, 5}", 1.0),
    ("several boxes", r"\boxed{2, 5}", r"\boxed{2}, \boxed{5}", 1.0),
    ("several boxes", r"$\boxed{(1, 3)}$ and $\boxed{(4, 0)}$", "(1,3),(4,0)", 1.0),
    ("several boxes", r"First \boxed{2}, then I saw the error: \boxed{5}", "2, 5", 0.0),
    ("labelled", "$PQ = 7, RS = 9$", "7, 9", 1.0),
    ("labelled", "$m:n = 3:8$", "3:8", 1.0),
    ("labelled", "$|XY| = 2$", "2", 1.0),
    ("labelled", r"$\frac{XY}{YZ} = \frac{1}{2}$", r"\frac12", 1.0),
    ("labelled", "$a=3, b=1; a=5, b=1$", "(3, 1), (5, 1)", 1.0),
    ("labelled", "$a=3, b=1; a=5, b=1$", "(3, 1), (5, 2)", 0.0),
    ("labelled", "$g(x) = 3x - 1$", "y = 3x - 1", 1.0),
    ("labelled", "$g(x) = 3x + 1$", "y = 3x - 1", 0.0),
    ("relations", r"$1 \le |t| \le 2$", r"[-2, -1] \cup [1, 2]", 1.0),
    ("relations", r"$1 \le |t| \le 2$", "[1, 2]", 0.0),
    ("relations", "$0 < g(x) < 2$", "(0, 2)", 1.0),
    ("relations", r"$-3 \le x \le 4$", r"-3 \\le x \\le 4", 1.0),
    ("relations", r"$-3 \\le x \\le 4$", "[-3, 4]", 1.0),
    ("numbers", "There are 2 500 people.", "2500", 1.0),
    ("numbers", "0,25", "0.25", 1.0),
    ("numbers", ".75", "0.75", 1.0),
    ("numbers", "Total: 3,40 $", "3.40", 1.0),
    ("numbers", "14:05:00", "14:05", 1.0),
    ("numbers", "It ends at 2:05 p.m.", "14:05", 1.0),
    ("numbers", "It ends at 2:05 a.m.", "14:05", 0.0),
    ("matrices", r"$\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix} + \begin{pmatrix} 2 & 2 \\ 3 & 4 \end{pmatrix}$",
     r"\begin{pmatrix} 3 & 4 \\ 6 & 8 \end{pmatrix}", 1.0),
    ("matrices", r"$2\begin{pmatrix} 1 & 0 \\ 0 & 1 \end{pmatrix}$", r"\begin{pmatrix} 2 & 0 \\ 0 & 2 \end{pmatrix}", 1.0),
    ("golds", r"\boxed{42}", "The sum is 40 + 2, so the answer is $\\boxed{42}$.", 1.0),
    ("golds", r"\boxed{42}", "42\\", 1.0),
    ("golds", r"\boxed{0.5}", r"\\frac{1}{2}", 1.0),
    ("golds", r"\boxed{g''}", "g''", 1.0),
    ("golds", r"\boxed{g'}", "g''", 0.0),
    ("golds", r"\boxed{x=1, y=2}", r"\begin{cases} x = 1 \\ y = 2 \end{cases}", 1.0),
    ("golds", r"\boxed{\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}}", r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \\ \end{pmatrix}", 1.0),
    ("golds", r"\boxed{7/3}", "2 1/3", 1.0),
    ("golds", r"\boxed{1}", "The answer is $\x08oxed{1}$", 1.0),
    ("integer gold", r"\boxed{1234568.0}", "1234567", 0.0),
    ("integer gold", r"\boxed{1000000.9}", "1000000", 0.0),
    ("integer gold", r"\boxed{1234567.0}", "1234567", 1.0),
    ("degrees", r"\boxed{\cos(90^\circ - t)}", r"\sin t", 1.0),
    ("scripts", r"\boxed{2⁴}", "16", 1.0),
    ("scripts", r"\boxed{x₂}", "x_2", 1.0),
    ("scripts", r"\boxed{③}", "3", 1.0),
    ("kept", r"\boxed{9^{9^{9^9}}}", "9", 0.0),
    ("kept", r"\boxed{9}", "9^{9^{9^9}}", 0.0),
    ("kept", "7 weeks", "7", 1.0),
    ("kept", r"\boxed{12\text{ m}^2}", "12", 1.0),
    ("kept", r"\boxed{2\frac{1}{3}}", r"\frac{7}{3}", 1.0),
    ("kept", "so the total is 42.", "42", 1.0),
    ("kept", "$x = 2 + 3 = 5$", "5", 1.0),
]


@pytest.mark.parametrize(("category", "completion", "gold", "value"), CASES,
                         ids=[f"{c}-{i}" for i, (c, *_rest) in enumerate(CASES)])
def test_answer_as_the_world_writes_it_gets_its_value(category, completion, gold, value):
    assert REWARD(completions=[completion], solution=[gold]) == [value]


@pytest.mark.parametrize("gold", [float("nan"), "NaN"])
def test_a_nan_gold_leaves_the_sample_out(gold):
    assert REWARD(completions=[r"\boxed{1}"], solution=[gold]) == [None]


@pytest.mark.parametrize(("gold", "pred", "places", "equal"), [
    (r"\frac{2}{3}", "0.67", 2, True),
    (r"\frac{2}{3}", "0.67", 4, False),
    (r"\frac{1}{3}", "0.3333", 4, True),
    (r"(\frac{3}{5}, \frac{8}{3}]", "(0.6, 2.6667]", 2, True),
    (r"\begin{pmatrix} \frac{1}{3} \\ \frac{1}{5} \end{pmatrix}", r"\begin{pmatrix} 0.33 \\ 0.2 \end{pmatrix}", 2, True),
    (r"(\frac{1}{3}, 2)", "(0.33, 2)", 2, True),
    (r"(\frac{1}{3}, 2)", "(0.34, 2)", 2, False),
    (r"\sqrt{2}", "1.41", 2, True),
    (r"\sqrt{2}", "1.41", 3, False),
])
def test_precision_compares_decimals_rounded_to_that_many_places(gold, pred, places, equal):
    assert is_equal(gold, pred, precision=places) is equal


def test_without_precision_an_integer_gold_is_compared_exactly():
    assert is_equal("1234567", "1234568.0") is False
    assert is_equal("1234567", "1234567.0") is True
    assert is_equal("1234567.5", "1234567.5000001") is True  # a decimal gold keeps rel_tol


def test_the_reward_takes_a_precision_in_decimal_places():
    rounded = make_accuracy(metric="math_accuracy_2dp", precision=2)
    completions = [r"\boxed{0.67}", r"\boxed{0.6667}", r"\boxed{(0.33, 2)}", r"\boxed{0.66}"]
    golds = [r"\frac{2}{3}", r"\frac{2}{3}", r"(\frac{1}{3}, 2)", r"\frac{2}{3}"]
    assert rounded(completions=completions, solution=golds) == [1.0, 1.0, 1.0, 0.0]
    assert REWARD(completions=completions[:1], solution=golds[:1]) == [0.0]


@pytest.mark.parametrize("precision", [-1, 2.5, True, "2"])
def test_a_bad_precision_is_a_one_line_error(precision):
    with pytest.raises(ValueError, match="precision"):
        make_accuracy(precision=precision)(completions=["1"], solution=["1"])


@pytest.mark.parametrize(("completion", "gold"), [
    (r"$\begin{vmatrix} 2 & 1 \\ 1 & 2 \end{vmatrix} = 3$", "3"),
    (r"$\lim_{x \to 0} \frac{\sin x}{x} = 1$", "1"),
    (r"$17 \bmod 5 = 2$", "2"),
    (r"$\sqrt{4} = 2$", "2"),
    (r"$x\approx11$", "11"),
    (r"$x = 5+5+1 = 1/3 \approx 11$", "x = 1/3"),
    ("$7:32$", "$S_{MBCN}:S=7:32$"),
    ("${1,3}$", "$(1,3)$"),
])
def test_an_equality_chain_is_read_at_its_last_side(completion, gold):
    assert REWARD(completions=[completion], solution=[gold]) == [1.0]


@pytest.mark.parametrize(("completion", "gold"), [
    (r"\frac{\sqrt{3}}{3} \approx 0.577", r"\frac{\sqrt{3}}{3}"),
    (r"\frac{\sqrt{3}}{3}", r"\frac{\sqrt{3}}{3} \approx 0.577"),
    (r"\tfrac{1}{2} +\! \frac1{72}", r"\\dfrac{1}{2} +\frac{1}{72}"),
    ("$\\begin{pmatrix}-\\\x0crac{7}{4}&-2\\\\4&\\frac{1}{4}\\\\\\end{pmatrix}$",
     "$\\begin{pmatrix}-\\\x0crac{7}{4}&-2\\\\4&\\frac{1}{4}\\\\\\end{pmatrix}$"),
])
def test_an_exact_value_keeps_its_approximation_and_its_escapes_apart(completion, gold):
    assert REWARD(completions=[completion], solution=[gold]) == [1.0]


def test_a_sentence_gold_without_an_answer_leaves_the_sample_out():
    assert REWARD(completions=[r"\boxed{43}"], solution=["Answer is forty three."]) == [None]


@pytest.mark.parametrize(("completion", "gold", "value"), [
    ("$p=5,q=2;p=7,q=2$", r"\boxed{ p = 5, q = 2 \quad \text{and} \quad p = 7, q = 2}", 1.0),
    ("$p=5,q=2;p=7,q=2$", r"\boxed{ p = 5, q = 2 \quad \text{and} \quad p = 2, q = 7}", 0.0),
    (r"\boxed{1, 2 \text{ and } 3}", "1, 2, 3", 1.0),
    ("how many $? just about 1$", "1", 1.0),
])
def test_groups_of_labelled_values_and_unreadable_math(completion, gold, value):
    assert REWARD(completions=[completion], solution=[gold]) == [value]


@pytest.mark.parametrize(("gold", "pred", "equal"), [
    (r"F_n = \sum_{k=0}^{n-1} F_k F_{n-k-1}", r"F_n = \sum_{k=0}^{n-1} F_{n-k-1} F_k", True),
    ("55", r"\sum_{k=1}^{10} k", True),
    ("120", r"\prod_{k=1}^{5} k", True),
    ("1", r"\sum_{k=1}^{10^9} k", None),  # past the size bounds and not decided by structure: undecided, not wrong
])
def test_sums_and_products_with_bounds(gold, pred, equal):
    assert is_equal(gold, pred) is equal


@pytest.mark.parametrize(("completion", "gold", "value"), [
    # a gold whose last \boxed{ lost its closing brace (doubled backslashes too) is read to its end
    ("W(x)=1 or W(x)=-1", r"\\boxed{W(n) = 1 \\text{ and } W(n) = -1", 1.0),
    ("W(x)=1", r"\\boxed{W(n) = 1 \\text{ and } W(n) = -1", 0.0),
    (r"\boxed{\frac12}", r"So the answer is $\boxed{\frac{1}{2}$", 1.0),
    ("1", r"So the answer is $\boxed{\frac{1}{2}$", 0.0),
    (r"\boxed{3}", r"\boxed{3} and then \boxed{4", 1.0),  # a complete box before it still wins
    # a unit with a braced or superscript power, and a one-letter unit glued to a measure
    ("The area is 12 m^{2}.", "12", 1.0),
    ("The area is 12 m².", "12", 1.0),
    ("The area is 12 cm^{2}.", "12", 1.0),
    ("The area is 12 cm^{2}.", "2", 0.0),
    ("so the number is 10 which is 1,000.99m²", "1000.99", 1.0),
    ("It is 2.5m", "2.5", 1.0),
    ("It is 2.5m", "3.5", 0.0),
])
def test_an_open_gold_box_and_units_with_powers(completion, gold, value):
    assert REWARD(prompts=[""], completions=[completion], solution=[gold]) == [value]


@pytest.mark.parametrize(("gold", "pred", "equal"), [
    ("2", "2m", False),  # a one-letter variable glued to a small integer stays algebra
    ("x^2 + 2.5", "x^{2} + 2.5m", False),  # ... and inside an expression
])
def test_a_glued_letter_is_a_unit_only_after_a_measure(gold, pred, equal):
    assert is_equal(gold, pred) is equal


@pytest.mark.parametrize(("completion", "gold", "value"), [
    ("W(x)=1orW(x)=-1", r"\\boxed{W(n) = 1 \\text{ and } W(n) = -1", 1.0),  # math-verify's own test
    ("W(x)=1orW(x)=-2", r"\\boxed{W(n) = 1 \\text{ and } W(n) = -1", 0.0),
    ("x=1orx=2", "1, 2", 1.0),
    ("x=1orx=3", "1, 2", 0.0),
    ("2order", "2", 1.0),  # a word that only starts with "or" stays a word
])
def test_or_glued_between_two_answers(completion, gold, value):
    assert REWARD(prompts=[""], completions=[completion], solution=[gold]) == [value]


@pytest.mark.parametrize(("completion", "gold", "value"), [
    ("so x = 5 + y", "5", 0.0),  # was read as x = 5: the expression goes on past the last number
    ("so x = 5 + y.", "5 + y", 1.0),
    (r"so x = 2\pi", "2", 0.0),
    (r"so x = 2\pi", r"2\pi", 1.0),
    (r"we get 3 + \pi", r"3 + \pi", 1.0),
    ("It is 5 - a bit more", "5", 1.0),  # prose after the operator: the number stays the answer
])
def test_the_last_number_is_not_cut_out_of_symbols_after_it(completion, gold, value):
    assert REWARD(prompts=[""], completions=[completion], solution=[gold]) == [value]


@pytest.mark.parametrize(("completion", "gold", "value"), [
    (r"\boxed{\{(9, -1), (11, -7)\}}", "(9, -1), (11, -7)", 1.0),
    (r"\boxed{\{(9, -1), (11, -7)\}}", "$(9, -1), (11, -7)$", 1.0),
    (r"The answer is \{(11, -7), (9, -1)\}.", "(9, -1), (11, -7)", 1.0),
    (r"\boxed{(9, -1), (11, -7)}", r"\{(9,-1),(11,-7)\}", 1.0),
    (r"\boxed{\{(11,-7),(9,-1)\}}", r"\{(9,-1),(11,-7)\}", 1.0),
    (r"\boxed{\{(11,-7),(9,-2)\}}", r"\{(9,-1),(11,-7)\}", 0.0),
    (r"\boxed{\{(9,-1)\}}", r"\{(9,-1),(11,-7)\}", 0.0),
    (r"\boxed{(1, 2)}", r"\{(1, 2)\}", 1.0),
    (r"\boxed{(2, 1)}", r"\{(1, 2)\}", 0.0),
])
def test_a_set_of_points_in_braces_is_the_list_of_its_points(completion, gold, value):
    assert REWARD(prompts=[""], completions=[completion], solution=[gold]) == [value]


@pytest.mark.parametrize(("completion", "gold", "value", "label"), [
    ("yes", r"\text{yes}", 1.0, "correct"),
    ("Yes", r"$\text{yes}$", 1.0, "correct"),
    ("east", r"\text{east}", 1.0, "correct"),
    ("East.", r"\text{east}", 1.0, "correct"),
    ("North  East", r"\text{north east}", 1.0, "correct"),
    ("no", r"\text{yes}", 0.0, "wrong"),
    ("west", r"\text{east}", 0.0, "wrong"),
    ("no idea", "12", 0.0, "no_answer"),  # plain words are an answer only against a text gold
    ("No", r"\text{no}", 1.0, "correct"),  # a two-letter word in \text{} is a word, not n*o
    (r"\boxed{No}", r"$\text{no}$", 1.0, "correct"),
    ("Yes", r"\text{no}", 0.0, "wrong"),
])
def test_a_completion_of_plain_words_is_a_text_answer(completion, gold, value, label):
    assert REWARD(prompts=[""], completions=[completion], solution=[gold]) == [value]
    explained = Accuracy().explain(completion, solution=gold)
    assert explained["label"] == label
    assert (explained["answer"] is None) == (label == "no_answer")


@pytest.mark.parametrize(("completion", "gold", "value"), [
    ("So x = −59.", "-59", 1.0),  # U+2212, as models and PDFs write the minus
    ("So x = −59.", "59", 0.0),
    ("x = −3", "-3", 1.0),
    ("We get 4 − 7 = −3.", "-3", 1.0),
    ("So x = π/6.", r"\frac{\pi}{6}", 1.0),
    ("So x = π/6.", "6", 0.0),
    ("So x = 2π.", r"2\pi", 1.0),
])
def test_unicode_minus_and_pi_belong_to_the_stated_result(completion, gold, value):
    assert REWARD(prompts=[""], completions=[completion], solution=[gold]) == [value]


@pytest.mark.parametrize(("completion", "gold", "value"), [
    ("so g = 9.8 m/s^2", "9.8", 1.0),  # was read as m/s^2
    ("so g = 9.8 m/s^2", "2", 0.0),
    ("The speed is 12 km/h.", "12", 1.0),
    ("so g = 9.8 m/s^{2}.", "9.8", 1.0),
])
def test_a_compound_unit_ends_the_stated_result(completion, gold, value):
    assert REWARD(prompts=[""], completions=[completion], solution=[gold]) == [value]


@pytest.mark.parametrize(("gold", "pred", "equal"), [
    ("9.8", "9.8 m/s^2", True),
    ("5", "5 m/s", True),
    ("9.8", r"9.8 \text{ m/s}^2", True),
    ("5", "5 m/n", False),  # n is no unit: 5 m/n stays a quotient
])
def test_a_unit_with_a_slash_is_skipped_as_one_unit(gold, pred, equal):
    assert is_equal(gold, pred) is equal


@pytest.mark.parametrize(("completion", "gold", "value"), [
    (r"so x = 2\pi r.", r"2\pi r", 1.0),  # was read as x = 2
    (r"so x = 2\pi r.", "2", 0.0),
    (r"so x = 2\pi r", r"2\pi", 0.0),
    (r"The area is 3\pi r^2.", r"3\pi r^2", 1.0),
    (r"so x = 2\alpha t.", r"2\alpha t", 1.0),
    (r"so x = 2\implies y.", "2", 1.0),  # only a symbol's command (pi, Greek) is multiplied across a space
])
def test_a_product_after_a_command_stays_in_the_stated_result(completion, gold, value):
    assert REWARD(prompts=[""], completions=[completion], solution=[gold]) == [value]


@pytest.mark.parametrize(("completion", "gold", "value"), [
    ("So x = pi.", r"\pi", 1.0),  # no digit anywhere: the stated result is read at its last pi
    ("So x = π.", r"\pi", 1.0),
    (r"So x = \pi.", r"\pi", 1.0),
    ("So x = π.", "3", 0.0),
    ("So x = 3; pi is not involved.", "3", 1.0),  # a number in the text keeps the last-number rule
    ("I love apple pie.", r"\pi", 0.0),
    ("So x = 2*pi.", r"2\pi", 1.0),  # found by fuzz.py --seed 2: was read as x = 2
    ("So x = 2*pi.", "2", 0.0),
])
def test_a_result_of_pi_without_digits_is_read(completion, gold, value):
    assert REWARD(prompts=[""], completions=[completion], solution=[gold]) == [value]
