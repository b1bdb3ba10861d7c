"""Pathological answers resolve to a defined value, and the rest of the batch is scored normally."""

from __future__ import annotations

import pytest

import grpo_rewards_math
from grpo_rewards import Reward
from grpo_rewards_math import make_accuracy
from grpo_rewards_math.correctness import clear_cache

PATHOLOGICAL = {
    "power_tower": "9^{9^{9^{9}}}",
    "huge_power": "10^{10^{7}}",
    "huge_factorial": "100000!",
    "nested_parentheses": "(" * 300 + "1" + ")" * 300,
    "nested_braces": "{" * 300 + "1" + "}" * 300,
    "nested_fractions": "\\frac{1}{" * 150 + "2" + "}" * 150,
    "long_digits": "9" * 5000,
}


def _labels(reward: Reward, completions: list[str], golds: list[str]) -> tuple[list[float | None], list[str]]:
    logged: dict[str, list[str]] = {}
    values = reward(completions=completions, solution=golds,
                    log_extra=lambda column, values: logged.__setitem__(column, values))
    return values, logged[f"{reward.__name__}/outcome"]


#: Answers over the size limits (nesting depth, digits) cannot be gold answers.
OVER_LIMITS = {"nested_fractions", "long_digits"}
#: Deep but plain arithmetic: read by the iterative path (its value is 1)
PLAIN = {"nested_parentheses", "nested_braces"}


@pytest.mark.parametrize("name", sorted(PATHOLOGICAL))
def test_pathological_prediction_is_wrong_without_being_evaluated(name):
    clear_cache()
    values, labels = _labels(make_accuracy(), [f"\\boxed{{{PATHOLOGICAL[name]}}}"], ["1"])
    assert (values, labels) == (([1.0], ["correct"]) if name in PLAIN else ([0.0], ["wrong"]))


@pytest.mark.parametrize("name", sorted(PATHOLOGICAL))
def test_pathological_gold_is_compared_or_left_out(name):
    clear_cache()
    values, labels = _labels(make_accuracy(), ["\\boxed{1}", f"\\boxed{{{PATHOLOGICAL[name]}}}"],
                             [PATHOLOGICAL[name]] * 2)
    if name in OVER_LIMITS:
        assert (values, labels) == ([None, None], ["gold_unparsable"] * 2)
    elif name in PLAIN:
        assert (values, labels) == ([1.0, 1.0], ["correct", "correct"])
    else:
        assert (values, labels) == ([0.0, 1.0], ["wrong", "correct"])


def test_one_megabyte_completions_give_defined_values():
    clear_cache()
    reasoning = "7 + 5 = 12, then 12 - 5 = 7. " * 36_000
    assert len(reasoning) > 1_000_000
    completions = [
        reasoning + "\\boxed{12}",
        reasoning,
        "\\boxed{" + "1" * 1_000_000 + "}",
        "(" * 1_000_000,
        "\\frac{" * 200_000,
    ]
    values, labels = _labels(make_accuracy(), completions, ["12"] * len(completions))
    assert values[0] == 1.0
    assert labels[1:] == ["wrong", "no_answer", "no_answer", "no_answer"]
    assert values[1:] == [0.0] * 4


def test_a_batch_with_every_pathological_input_still_scores_its_normal_samples():
    clear_cache()
    bad = [f"\\boxed{{{p}}}" for p in PATHOLOGICAL.values()]
    completions = ["\\boxed{12}", *bad, "7 + 5 = \\boxed{12}", "\\boxed{13}"]
    values = grpo_rewards_math.accuracy(completions=completions, solution=["12"] * len(completions))
    assert values[0] == 1.0 and values[-2:] == [1.0, 0.0]
    assert values[1:-2] == [0.0] * len(bad)
