"""The cheap paths the calling process takes give what the general paths give.

``surds.rational`` (two rationals compared without normal forms) against ``surds.evaluate`` on
generated constant trees; the lazy phrase readings against the full list; light nodes whose hash
is computed on demand against their structure; the ``$`` scanner against a hand-written one.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st
from lanes import examples

from grpo_rewards_math.extract.phrases import iter_phrase_candidates, phrase_candidates
from grpo_rewards_math.extract.spans import clean, dollar_spans, math_spans, strip_wrappers
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


@settings(max_examples=examples(200, thorough=400))
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


_EDGES = st.text(alphabet=" \t\n*$\\()[].,;x1{}", max_size=12)


@settings(max_examples=examples(200, thorough=600))
@given(_EDGES)
def test_clean_returns_what_every_rewrite_gives(text):
    assert clean(text) == strip_wrappers(text)


@settings(max_examples=examples(200, thorough=600))
@given(st.text(alphabet=" \t*$\\()[].,;x", max_size=8).map(lambda t: f"${t}$"))
def test_clean_of_a_dollar_wrapped_answer_returns_what_every_rewrite_gives(text):
    assert clean(text) == strip_wrappers(text)


def test_clean_unwraps_dollars_around_an_answer_with_bare_ends_and_leaves_the_rest_to_the_rewrites():
    assert clean("$14400$") == "14400"
    assert clean(" $$x = 2$$ ") == "x = 2"
    assert clean("$.$") == ""  # the inner "." is a full stop: the rewrites drop it
    assert clean("$ x. $") == "x"
    assert clean("$**7**$") == "7"


def test_clean_keeps_an_answer_with_nothing_to_strip_and_strips_the_rest():
    assert clean(r"\frac{1}{2}") == r"\frac{1}{2}"
    assert clean(r"\(x = 3\)") == "x = 3"
    assert clean(" **$42$.** ") == "42"
    assert clean("") == ""


@settings(max_examples=examples(150, thorough=300))
@given(st.lists(st.text(alphabet="$\\()[]x ", max_size=10), min_size=2, max_size=4))
def test_math_spans_of_a_text_do_not_depend_on_the_text_read_before(texts):
    fresh = [math_spans((t + "!")[:-1]) for t in texts]  # equal texts, other objects than the ones read below
    for text, spans in zip(texts, fresh):
        math_spans(text)
        assert math_spans(text) == spans
    assert math_spans("$a$ and $b$") == ((1, 2), (9, 10))
    assert math_spans("no math") == ()


def test_a_plain_number_written_twice_is_equal_and_other_identical_texts_go_on_to_the_parser():
    from grpo_rewards_math.equivalence import _plain_equal, conventions_of, quick_equal

    conventions = conventions_of()
    assert _plain_equal("0.5", "0.5", conventions) is True
    assert _plain_equal("x", "x", conventions) is None
    assert _plain_equal("\\frac{1}{3}", "\\frac{1}{3}", conventions) is True
    assert quick_equal("x", "x") is True


def test_plus_minus_is_expanded_when_written_as_a_command_or_a_symbol():
    from grpo_rewards_math.parse import read_answer

    for text in (r"1 \pm \sqrt{2}", "1 ± √2", r"3 \mp 1"):
        answer = read_answer(text)
        assert answer.kind == "multi" and len(answer.value) == 2, text
    assert read_answer(r"1 + \sqrt{2}").kind == "expr"


#: pieces of prose around numbers: words, commands, operators, units, brackets, separators, other scripts
_PROSE_PIECES = ["just", "is", "x", "a", "cm", "m", "km/h", "pi", "\\pi", "\\sqrt", "\\le", "\\cdot", "\\text{ m}",
                 "p.m.", "千克", "共", "²", "π", "√", "×", "٣", "1,000", "3.5", "2:05", "10^{2}", "^2", "^{3}",
                 " ", "  ", "\t", "\n", ".", ",", ":", ";", "!", "?", "%", "'", "(", ")", "[", "]", "{", "}",
                 "$", "\\", "+", "-", "*", "/", "=", "<", "_", "|", "**", "0", "7", "12", "345", "000"]


@settings(max_examples=examples(500, thorough=3000))
@given(st.lists(st.sampled_from(_PROSE_PIECES), max_size=10).map("".join))
def test_a_bare_run_of_digits_is_the_span_the_growth_finds(text):
    from grpo_rewards_math.extract import prose

    fast = prose.last_result(text)
    prose.BARE_RUNS = False
    try:
        assert prose.last_result(text) == fast
    finally:
        prose.BARE_RUNS = True


def test_the_bare_run_shortcut_reads_plain_numbers_and_leaves_the_rest_to_the_growth():
    from grpo_rewards_math.extract.prose import _bare_run, last_result

    assert _bare_run("just 42", 6, 0) == 5 and last_result("just 42") == "42"
    assert _bare_run("共300分钟", 3, 0) == 1 and last_result("共300分钟") == "300"
    assert last_result("It is 1 000.") == "1 000"  # spaced thousands, through the shortcut
    assert _bare_run("x = 42", 5, 0) == -1 and last_result("x = 42") == "x = 42"
    assert _bare_run("\\sqrt 2", 6, 0) == -1 and last_result("\\sqrt 2") == "\\sqrt 2"
    assert _bare_run("42 + x.", 1, 0) == -1 and last_result("42 + x.") == "42 + x"
    assert _bare_run("it is 42m.", 7, 0) == -1 and last_result("it is 42m.") == "42m"
    assert _bare_run("costs 1,000.99€", 13, 0) == 6 and last_result("costs 1,000.99€") == "1,000.99"
    assert _bare_run("so 0.5.", 5, 0) == 3 and last_result("so 0.5.") == "0.5"
    assert _bare_run("x.5", 2, 0) == -1 and last_result("x.5") == "x.5"
    many = "version " + ".".join(map(str, range(12)))  # more separators than the shortcut follows
    assert _bare_run(many, len(many) - 1, 0) == -1 and last_result(many) == ".".join(map(str, range(12)))


_TOKEN_TEXTS = st.lists(st.sampled_from(["1", "23", "0.5", "x", "y", "ab", "\\pi", "+", "-", "*", "/", "^", "=", ",",
                                         ";", "(", ")", "{", "}", "[", "]", "\\frac", "\\sqrt", "!", "%", " ", "|",
                                         "\\le", "\\cdot", "^\\circ", "\\{", "\\}", "and", "\\text{ cm}"]),
                        max_size=12).map("".join)


@settings(max_examples=examples(500, thorough=3000))
@given(_TOKEN_TEXTS)
def test_one_atom_before_a_closing_token_reads_as_the_full_descent_reads_it(text):
    from grpo_rewards_math.grammar.parser import Parser
    from grpo_rewards_math.latex_lexer import ParseError, tokenize

    def parse(shortcut: bool) -> object:
        try:
            tokens = tokenize(text)
        except ParseError:
            return "unlexable"
        parser = Parser(tokens, _Builder())
        parser.atom_shortcut = shortcut
        try:
            return parser.parse_items()
        except (ParseError, ValueError) as exc:  # (read_answer turns both into one ParseError)
            return f"{type(exc).__name__}: {exc}"

    assert parse(True) == parse(False)


#: ASCII pieces of announced answers: the phrase words, the sentence ends, the "is" words, every ASCII
#: whitespace character (\x1c-\x1f: whitespace to re's \s, not to regex's), word characters, punctuation
_PHRASE_PIECES = ["final", "Final", "FINAL", "answer", "Answer", "the", "correct", "is", "IS", "are", "equals",
                  "be", "of", "because", "since", "as", "which", "where", "x", "_", "7", "$", ".", ":", "=", ",",
                  " ", "  ", "\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1d", "\x1e", "\x1f", "\x00", "~", "é"]


@settings(max_examples=examples(300, thorough=1500))
@given(st.lists(st.sampled_from(_PHRASE_PIECES), max_size=14).map("".join), st.integers(0, 40), st.integers(0, 60))
def test_the_re_twin_of_each_phrase_pattern_matches_as_the_regex_pattern_on_ascii_text(text, pos, endpos):
    from grpo_rewards_math.extract import phrases

    for rule in (phrases._PHRASE, phrases._SENTENCE_END, phrases._IS, phrases._FINAL):
        assert [m.span() for m in rule.ascii.finditer(text)] == [m.span() for m in rule.timed.finditer(text)]
        fast, full = rule.ascii.search(text, pos, endpos), rule.timed.search(text, pos, endpos)
        assert (fast and fast.span()) == (full and full.span())
        fast, full = rule.ascii.match(text, pos, endpos), rule.timed.match(text, pos, endpos)
        assert (fast and fast.span()) == (full and full.span())
        if text.isascii():  # what the rule runs: the twin on short ASCII text, the regex module on the rest
            assert [m.span() for m in rule.finditer(text, timeout=None)] == [m.span() for m in rule.timed.finditer(text)]


def test_a_phrase_rule_runs_the_re_twin_on_short_ascii_text_and_the_timed_pattern_on_the_rest():
    from grpo_rewards_math.extract.phrases import _PHRASE, TIMED_CHARS, _limit

    long = "x" * TIMED_CHARS + " answer: 7"
    for text, fast, end in (("so the Final Answer: 7.", True, 21), ("Réponse. The answer is 7", False, 23),  # not ASCII
                            (long, False, len(long) - 1)):  # long: the regex module, with a timeout
        assert _PHRASE._fast(text, _limit(text)) is fast
        assert _PHRASE.search(text, timeout=_limit(text)).end() == end
