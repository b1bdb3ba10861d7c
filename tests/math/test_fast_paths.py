"""The cheap paths the calling process takes give what the general paths give.

``surds.rational`` (two rationals compared without normal forms) against ``surds.evaluate`` on
generated constant trees; the lazy phrase readings against the full list; light nodes whose hash
is computed on demand against their structure; the ``$`` scanner against a hand-written one.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_rewards_math.extract.phrases import iter_phrase_candidates, phrase_candidates
from grpo_rewards_math.extract.spans import dollar_spans
from grpo_rewards_math.latex_lexer import normalize
from grpo_rewards_math.light import LightBuilder, Node
from grpo_rewards_math.surds import MAX_BITS, Surd, Undecidable, evaluate, rational


class _Builder(LightBuilder):
    """Builds trees for many examples in one session: no node count across them."""

    def tick(self, k: int = 1) -> None:
        pass


_b = _Builder()


def _trees() -> st.SearchStrategy[Node]:
    leaves = st.one_of(
        st.integers(-10**6, 10**6).map(lambda n: _b.number(str(abs(n))) if n >= 0 else _b.neg(_b.number(str(-n)))),
        st.sampled_from(["0.5", "2.25", "1e3", "12.000"]).map(_b.number),
        st.just(_b.pi),
        st.integers(0, 50).map(lambda n: _b.sqrt(_b.number(str(n)))),
    )

    def grow(children: st.SearchStrategy[Node]) -> st.SearchStrategy[Node]:
        return st.one_of(
            st.lists(children, min_size=2, max_size=4).map(_b.add),
            st.lists(children, min_size=2, max_size=4).map(_b.mul),
            st.tuples(children, st.integers(-40, 40)).map(lambda t: _b.pow(t[0], _b.number(str(abs(t[1])))
                                                                             if t[1] >= 0 else
                                                                             _b.neg(_b.number(str(-t[1]))))),
            st.tuples(children, children).filter(lambda t: t[1] != 0).map(lambda t: _b.div(*t)),
            st.integers(0, 40).map(lambda n: _b.factorial(_b.number(str(n)))),
        )

    return st.recursive(leaves, grow, max_leaves=12)


@settings(max_examples=400, deadline=None)
@given(_trees())
def test_the_rational_path_gives_the_value_the_surds_give(tree):
    q = rational(tree)
    try:
        full = evaluate(tree)
    except (Undecidable, ZeroDivisionError):
        full = None
    if q is None:
        return  # not a plain rational tree (a root, pi, a zero divisor, a size bound): evaluate decides
    assert max(q.numerator.bit_length(), q.denominator.bit_length()) <= MAX_BITS
    if full is not None:
        assert full.rational == q
    assert Surd.of(q).rational == q


def test_the_rational_path_leaves_roots_pi_and_oversized_powers_to_the_surds():
    assert rational(_b.sqrt(_b.number("2"))) is None
    assert rational(_b.mul([_b.number("2"), _b.pi])) is None
    assert rational(_b.pow(_b.number("3"), _b.number("100000"))) is None  # 158,497 bits: past MAX_BITS
    assert rational(_b.pow(_b.number("0"), _b.neg(_b.number("1")))) is None
    assert rational(_b.div(_b.number("3"), _b.pow(_b.number("2"), _b.number("3")))) == Fraction(3, 8)
    assert rational(_b.factorial(_b.number("5"))) == 120
    assert rational(_b.number("12.5")) == Fraction(25, 2)


@given(st.text(alphabet="The answer is $x=2$, so 0.5. because \\frac12 Final answer: 7", max_size=60))
def test_the_lazy_phrase_readings_are_the_listed_ones_in_order(text):
    assert list(iter_phrase_candidates(text)) == phrase_candidates(text)


def test_a_phrase_reading_accepted_first_is_the_first_listed():
    text = "Final answer: the smallest $k$ is 17."
    assert phrase_candidates(text) == ["the smallest $k$ is 17", "17"]
    assert next(iter_phrase_candidates(text)) == "the smallest $k$ is 17"


def _dollar_spans_by_hand(text: str) -> list[tuple[int, int]]:
    spans, i, opened = [], 0, None
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == "$":
            width = 2 if text.startswith("$$", i) else 1
            if opened is None:
                opened = (i + width, width)
            elif width >= opened[1]:
                spans.append((opened[0], i))
                opened = None
            i += width
            continue
        i += 1
    return spans


@given(st.text(alphabet="$\\ab\n{}1", max_size=30))
def test_the_dollar_scanner_pairs_delimiters_as_a_character_scan_does(text):
    assert dollar_spans(text) == _dollar_spans_by_hand(text)


def test_light_nodes_hash_and_compare_by_structure():
    a = _b.add([_b.number("1"), _b.sqrt(_b.number("2"))])
    b = _b.add([_b.number("1"), _b.sqrt(_b.number("2"))])
    c = _b.add([_b.number("1"), _b.sqrt(_b.number("3"))])
    assert a == b and hash(a) == hash(b) and a != c
    assert len({a, b, c}) == 2
    assert _b.number("7") == 7 and _b.number("7") is _b.number("7")  # one shared node per integer literal


def test_normalize_strips_a_full_stop_before_reading_thousands():
    assert normalize("1 000.") == "1000"
    assert normalize("$1 000.$") == "1000"
    assert normalize(r"\left( 1 \right).") == "( 1 )"
