"""Prompt echo: repeating the question's expression is not an answer (math.accuracy pays it 0.0)."""

from __future__ import annotations

import pytest

import grpo_rewards_math
from grpo_rewards_math.correctness import Accuracy
from grpo_rewards_math.echo import echoes_prompt


@pytest.mark.parametrize("completion", ["What is 2 + 2?", r"The answer is $\boxed{2 + 2}$.", "Compute 2+2"])
def test_an_answer_that_repeats_the_question_is_labelled_prompt_echo_and_pays_nothing(completion):
    assert Accuracy()(completion, solution="4", prompt="What is 2 + 2?") == (0.0, "prompt_echo")


def test_the_reward_reads_the_prompt_of_a_conversational_dataset():
    prompt = [{"role": "system", "content": "Box your answer."}, {"role": "user", "content": "What is 2 + 2?"}]
    assert grpo_rewards_math.accuracy(prompts=[prompt, prompt], completions=[r"\boxed{2+2}", r"\boxed{4}"],
                                      solution=["4", "4"]) == [0.0, 1.0]


def test_without_a_prompt_the_expression_is_compared_as_before():
    assert Accuracy()(r"\boxed{2 + 2}", solution="4") == (1.0, "correct")


@pytest.mark.parametrize(("answer", "prompt", "gold"), [
    ("4", "What is 2 + 2? Is it 4?", "4"),                                   # a bare number is never an echo
    (r"\frac{1}{2}", r"Which is larger, $\frac{1}{2}$ or $\frac{1}{3}$?", r"\frac{1}{2}"),  # the gold is in the question
    ("x+1", "Simplify 2x + 2 - x - 1.", "x+1"),                               # not in the question
    ("2+2", "Is 2+2 equal to 4?", "4"),
])
def test_answers_that_are_not_echoes(answer, prompt, gold):
    assert not echoes_prompt(answer, prompt, gold)


def test_factoring_by_repeating_the_polynomial_is_an_echo():
    assert echoes_prompt("x^2-1", "Factor x^2 - 1.", "(x-1)(x+1)")
