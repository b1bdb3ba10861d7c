"""Bounded work: exact constants are decided by interval arithmetic in-process (never a rounding
artefact, never an unbounded sympy call), and a parse outside any budget has its own CPU bound."""

from __future__ import annotations

import pytest

from grpo_rewards_math import make_accuracy, parse
from grpo_rewards_math.equivalence import quick_equal
from grpo_rewards_math.parse import ParseError, parse_answer

CONJUGATE_POWERS = (r"\sqrt[3]{\left(\sqrt{7+4\sqrt{3}}\right)^{5000}\left(\sqrt{7-4\sqrt{3}}\right)^{5000}}-1")


@pytest.mark.parametrize(("gold", "pred", "equal"), [
    ("0", CONJUGATE_POWERS, True),
    ("1", CONJUGATE_POWERS, False),
    ("0", r"\sqrt[3]{(\sqrt2+\sqrt3)^2-5-2\sqrt6}", True),
    ("1", r"\sqrt[10^{399}]{2}", False),
    (r"\sqrt[10^{399}]{2}", r"\sqrt[10^{399}]{2}", True),
    ("10^{10^7}", r"10^{5000000}\cdot10^{5000000}", True),
    ("10^{10^7}", r"100^{5000000}", True),
    ("10^{10^7}", r"10^{5000000}\cdot10^{4999999}", False),
    (r"2\sqrt{2}", r"\sqrt{8}", True),
    (r"\sqrt{2}", "1.4142135", True),
])
def test_exact_constants_are_decided_in_process(gold, pred, equal):
    assert quick_equal(gold, pred) is equal  # decided within the in-process budget, not None


def test_the_conjugate_power_answer_scores_through_the_reward():
    reward = make_accuracy()
    assert reward(completions=[rf"\boxed{{{CONJUGATE_POWERS}}}"] * 2, solution=["0", "1"]) == [1.0, 0.0]


def test_a_parse_outside_any_budget_is_bounded(monkeypatch):
    parse.clear_cache()
    monkeypatch.setattr(parse, "PARSE_BUDGET_S", -1.0)
    with pytest.raises(ParseError, match="CPU time"):
        parse_answer(r"\frac{12345}{678}")
    parse.clear_cache()


@pytest.mark.parametrize("text", ["2⁴", "x₂", "①", "2⁻¹"])
def test_unicode_script_digits_parse(text):
    parse_answer(text)


@pytest.mark.parametrize("text", ["٣", "𝟚", "߂"])
def test_other_unicode_digits_are_a_clean_parse_error(text):
    with pytest.raises(ParseError):
        parse_answer(text)
