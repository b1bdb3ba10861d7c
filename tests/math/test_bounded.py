"""Bounded work: exact constants are decided right (by bounded arithmetic in-process when it can, by
the symbolic check otherwise, never by a rounding artefact), and a parse outside any budget has
its own CPU bound. Which side decides is a property of the input, not of the machine's speed:
``quick_equal`` has no time budget (see ``grpo_rewards_math.bounded``); how long the in-process
side takes is measured in bench/bench_bounded.py, not here."""

from __future__ import annotations

import pytest

from grpo_rewards_math import make_accuracy, parse
from grpo_rewards_math.equivalence import is_equal, quick_equal
from grpo_rewards_math.parse import ParseError, parse_answer

CONJUGATE_POWERS = (r"\sqrt[3]{\left(\sqrt{7+4\sqrt{3}}\right)^{5000}\left(\sqrt{7-4\sqrt{3}}\right)^{5000}}-1")
#: the issue's family: N = 10^{2m}, so sqrt(N) is written 10^m; the value is 0
CONJUGATE_SURDS = r"\sqrt[3]{(\sqrt{10^{200}+1}+10^{100})^{3000}(\sqrt{10^{200}+1}-10^{100})^{3000}-1}"


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
def test_exact_constants_are_decided_right(gold, pred, equal):
    assert is_equal(gold, pred) is equal


@pytest.mark.parametrize(("gold", "pred", "equal"), [
    ("0", CONJUGATE_SURDS, True),
    ("1", CONJUGATE_SURDS, False),
    ("0", r"\sqrt[3]{(\sqrt2+\sqrt3)^2-5-2\sqrt6}", True),
    (r"2\sqrt{2}", r"\sqrt{8}", True),
    (r"\frac{\sqrt{3}}{2}", r"\frac{1}{2}\sqrt{3}", True),
    (r"\frac{\sqrt{3}}{2}", r"\frac{\sqrt{2}}{2}", False),
    (r"\frac{1}{\sqrt{2}}", r"\frac{\sqrt{2}}{2}", True),
    (r"\sqrt{2}", "1.4142135", True),
    (r"\sqrt{2}", "1.41", False),
])
def test_surds_are_decided_by_bounded_arithmetic(gold, pred, equal):
    assert quick_equal(gold, pred) is equal  # exact arithmetic on a + b*sqrt(r), no sympy: not None


def test_a_nested_radical_is_left_to_the_worker():
    assert quick_equal("0", CONJUGATE_POWERS) is None  # a root of a surd: not bounded arithmetic


def test_the_conjugate_power_answer_scores_through_the_reward():
    reward = make_accuracy()
    assert reward(completions=[rf"\boxed{{{CONJUGATE_POWERS}}}"] * 2, solution=["0", "1"]) == [1.0, 0.0]


def test_a_parse_outside_any_budget_is_bounded(monkeypatch):
    parse.clear_cache()
    monkeypatch.setattr(parse, "PARSE_BUDGET_S", -1.0)
    with pytest.raises(ParseError, match="CPU time"):
        parse_answer(r"\frac{12345}{678}")
    parse.clear_cache()


@pytest.mark.usefixtures("unbudgeted")
@pytest.mark.parametrize("text", ["2⁴", "x₂", "①", "2⁻¹"])
def test_unicode_script_digits_parse(text):
    parse_answer(text)


@pytest.mark.usefixtures("unbudgeted")
@pytest.mark.parametrize("text", ["٣", "𝟚", "߂"])
def test_other_unicode_digits_are_a_clean_parse_error(text):
    with pytest.raises(ParseError):
        parse_answer(text)


@pytest.mark.parametrize(("gold", "pred"), [("4", "9^{9^{9^{9}}}"), ("1", "100000!"), ("10^{100}", "10^{10^{7}}")])
def test_a_tower_against_a_bounded_value_is_decided_by_its_magnitude(gold, pred):
    assert quick_equal(gold, pred) is False  # a float lower bound of the tower, no evaluation
