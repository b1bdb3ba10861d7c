"""Past the size bounds (a tower the parser keeps unevaluated) an answer is decided only where its structure
shows sameness or a difference; everything else is undecided (``None``, label ``undecided``), never ``wrong``.

On main, ``\\sqrt[3]{10^{15000}}`` against ``10^{5000}`` and ``(1+\\sqrt2)^{99999}-(1+\\sqrt2)^{99999}``
against ``0`` were labelled ``wrong`` (issue 42): every huge pair that was not the same product of
integer powers was called different.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grpo_rewards_math.correctness import Accuracy
from grpo_rewards_math.equivalence import is_equal

SCORE = Accuracy()
FAST = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def label(gold: str, pred: str) -> tuple[float | None, str]:
    return SCORE(rf"so the answer is \boxed{{{pred}}}", solution=gold)


def test_the_two_answers_of_the_issue_are_correct_now():
    assert label("10^{5000}", r"\sqrt[3]{10^{15000}}") == (1.0, "correct")
    assert label(r"\sqrt[3]{10^{15000}}", "10^{5000}") == (1.0, "correct")
    assert label("0", r"(1+\sqrt2)^{99999}-(1+\sqrt2)^{99999}") == (1.0, "correct")


def test_a_huge_pair_that_structure_cannot_decide_is_undecided_not_wrong():
    # different, but only evaluation could show it: left out of the step, never paid and never called wrong
    assert label("0", r"(1+\sqrt2)^{99999}-(1+\sqrt3)^{99999}") == (None, "undecided")
    assert is_equal("1", r"\sum_{k=1}^{10^9} k") is None


def test_huge_pairs_whose_factorisations_differ_are_still_wrong():
    assert label("10^{5000}", r"\sqrt[3]{10^{15003}}") == (0.0, "wrong")
    assert label("7", r"\sqrt[3]{10^{15000}}") == (0.0, "wrong")
    assert label("0", "10^{10^{7}}") == (0.0, "wrong")
    assert label("100000!", "99999!") == (0.0, "wrong")
    assert label(r"2^{20000}\cdot 5^{20000}", "10^{20000}") == (1.0, "correct")


bases = st.tuples(st.integers(1, 9), st.sampled_from([2, 3, 5, 6, 7, 10, 11, 13])).map(lambda t: rf"({t[0]}+\sqrt{{{t[1]}}})")
big_exponents = st.integers(10_001, 500_000)


@FAST
@given(bases, big_exponents, st.sampled_from(["{x}-{x}", "-{x}+{x}", "{x}+0-{x}", "2{x}-{x}-{x}"]))
def test_a_huge_term_minus_itself_is_never_wrong_against_zero(base, n, shape):
    pred = shape.replace("{x}", f"{base}^{{{n}}}")
    assert label("0", pred)[1] in ("correct", "undecided"), pred


@FAST
@given(st.integers(2, 99), st.integers(2, 5), st.integers(2_001, 40_000))
def test_a_root_of_a_huge_power_is_never_wrong_against_its_value(m, k, n):
    pred, gold = rf"\sqrt[{k}]{{{m}^{{{k * n}}}}}", f"{m}^{{{n}}}"
    assert label(gold, pred)[1] in ("correct", "undecided"), (gold, pred)
    assert label(pred, gold)[1] in ("correct", "undecided"), (pred, gold)


@FAST
@given(st.integers(2, 99), st.integers(2, 5), st.integers(2_001, 40_000), st.integers(1, 3))
def test_a_root_of_a_different_huge_power_is_never_correct(m, k, n, off):
    pred, gold = rf"\sqrt[{k}]{{{m}^{{{k * n + off}}}}}", f"{m}^{{{n}}}"
    assert label(gold, pred)[1] in ("wrong", "undecided"), (gold, pred)
