"""The math tasks: deterministic prompts and gold answers that math.accuracy verifies."""

from __future__ import annotations

from fractions import Fraction

import pytest

import grpo_rewards_math
from grpo_rewards_math.tasks import TASKS, make_arithmetic, make_fractions, make_linear


@pytest.mark.parametrize("name", sorted(TASKS))
def test_task_rows_are_deterministic_for_a_seed(name):
    factory = TASKS[name][0]
    assert factory(20, seed=7) == factory(20, seed=7)
    assert factory(20, seed=7) != factory(20, seed=8)
    assert factory(5, seed=7) == factory(20, seed=7)[:5]


@pytest.mark.parametrize("name", sorted(TASKS))
def test_task_rows_have_a_plain_prompt_asking_for_a_box_and_a_solution(name):
    for row in TASKS[name][0](30, seed=1):
        assert set(row) == {"prompt", "solution"}
        assert isinstance(row["prompt"], str) and row["prompt"].endswith("Put the final answer in \\boxed{}.")
        assert isinstance(row["solution"], str) and row["solution"]


def test_arithmetic_prompt_is_short_and_its_solution_is_right():
    for row in make_arithmetic(200, seed=3):
        question = row["prompt"].removeprefix("What is ").split("?")[0]
        a, op, b = question.split()
        expected = {"+": int(a) + int(b), "-": int(a) - int(b), "*": int(a) * int(b)}[op]
        assert row["solution"] == str(expected)
        assert 1 <= int(a) <= 20 and 1 <= int(b) <= 20 and expected >= 0
        assert len(row["prompt"]) < 60


def test_fraction_solutions_are_in_lowest_terms():
    for row in make_fractions(100, seed=4):
        a, op, c = row["prompt"].removeprefix("What is ").split("?")[0].split()
        expected = Fraction(a) + Fraction(c) if op == "+" else Fraction(a) - Fraction(c)
        assert Fraction(row["solution"]) == expected
        assert row["solution"] == (str(expected.numerator) if expected.denominator == 1 else str(expected))


def test_linear_solution_solves_the_equation():
    for row in make_linear(100, seed=5):
        equation = row["prompt"].removeprefix("Solve for x: ").split(". Put")[0]
        left, right = equation.split(" = ")
        a, sign, b = left.split()
        x = int(row["solution"])
        assert int(a[:-1]) * x + (int(b) if sign == "+" else -int(b)) == int(right)


def test_chat_prompts_are_one_user_message():
    row = make_arithmetic(1, seed=0, chat=True)[0]
    assert row["prompt"] == [{"role": "user", "content": "What is 18 + 1? Put the final answer in \\boxed{}."}]


@pytest.mark.parametrize(("factory", "params"), [
    (make_arithmetic, {"n": -1}), (make_arithmetic, {"n": 1, "ops": "/"}), (make_arithmetic, {"n": 1, "max_value": 0}),
    (make_fractions, {"n": 1, "max_value": 1}), (make_linear, {"n": 1.5}),
])
def test_bad_task_parameters_are_rejected(factory, params):
    with pytest.raises(ValueError):
        factory(seed=0, **params)


@pytest.mark.parametrize("name", sorted(TASKS))
def test_boxed_gold_answers_score_one_and_off_by_one_answers_zero(name):
    rows = TASKS[name][0](16, seed=11)
    golds = [r["solution"] for r in rows]
    right = [f"The result is \\boxed{{{g}}}." for g in golds]
    wrong = [f"\\boxed{{{Fraction(g) + 1}}}" for g in golds]
    reward = grpo_rewards_math.make_accuracy()
    assert reward(completions=right + wrong, solution=golds + golds) == [1.0] * 16 + [0.0] * 16
