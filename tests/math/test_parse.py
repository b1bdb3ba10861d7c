"""The eval-free answer parser: what each notation parses to, and the size guards."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import sympy

from grpo_rewards_math.limits import DEFAULT_LIMITS, Limits
from grpo_rewards_math.parse import Answer, ParseError, parse_answer

#: what a parse gives and the size limits, not the CPU budget (tests/math/test_bounded.py tests that)
pytestmark = pytest.mark.usefixtures("unbudgeted")

x, y = sympy.symbols("x y")
R = sympy.Rational


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("42", 42),
        ("-7", -7),
        ("1,000", 1000),
        ("1,234,567", 1234567),
        (r"10,\!000", 10000),
        (r"1\,000\,000", 1000000),
        ("12,000.50", R(24001, 2)),
        ("0.25", R(1, 4)),
        (".5", R(1, 2)),
        ("1.5e3", 1500),
        ("2.5E-4", R(1, 4000)),
        (r"1.5 \times 10^{3}", 1500),
        (r"\frac{3}{4}", R(3, 4)),
        (r"\dfrac{3}{4}", R(3, 4)),
        (r"\tfrac{3}{4}", R(3, 4)),
        (r"\frac12", R(1, 2)),
        (r"\frac 1 2", R(1, 2)),
        ("3/4", R(3, 4)),
        (r"3\frac{1}{2}", R(7, 2)),
        (r"-2\frac{1}{4}", R(-9, 4)),
        (r"\sqrt{16}", 4),
        (r"\sqrt[3]{27}", 3),
        (r"2^{10}", 1024),
        ("2**10", 1024),
        (r"2 \cdot 3", 6),
        (r"2 \times 3", 6),
        (r"6 \div 4", R(3, 2)),
        (r"\log_2 8", 3),
        (r"\ln 1", 0),
        (r"\left| -3 \right|", 3),
        ("|2-5|", 3),
        ("5!", 120),
        (r"\binom{5}{2}", 10),
        (r"\$18.00", 18),
        (r"5\text{ cm}", 5),
        ("7 apples", 7),
        (r"24 \mbox{ cm}^2", 24),
        (r"\boxed{17}", 17),
        (r"$\displaystyle 17$", 17),
        (r"\( 17 \)", 17),
        ("17.", 17),
    ],
)
def test_numbers_parse_to_exact_values(text: str, value: object) -> None:
    ans = parse_answer(text)
    assert ans.kind == "expr"
    assert ans.value == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2x", 2 * x),
        ("xy", x * y),
        ("2(x+1)", 2 * x + 2),
        (r"x^{-1}", 1 / x),
        (r"\frac{x}{2}", x / 2),
        (r"\sin^2 x", sympy.sin(x) ** 2),
        (r"\sin^{-1} x", sympy.asin(x)),
        (r"\arctan x", sympy.atan(x)),
        (r"\cos 2x", sympy.cos(2 * x)),
        (r"\ln(x)", sympy.log(x)),
        (r"e^{x}", sympy.exp(x)),
        (r"\exp(x)", sympy.exp(x)),
        ("|x|", sympy.Abs(x)),
        (r"2\pi", 2 * sympy.pi),
        ("e", sympy.E),
        ("3+4i", 3 + 4 * sympy.I),
        (r"\infty", sympy.oo),
        (r"-\infty", -sympy.oo),
        (r"\theta", sympy.Symbol("theta")),
        ("a_1", sympy.Symbol("a_1")),
        ("a_{12}", sympy.Symbol("a_12")),
    ],
)
def test_symbolic_expressions_parse_to_sympy_objects(text: str, value: object) -> None:
    assert parse_answer(text).value == value


def test_percent_and_degree_are_flags_on_the_value_as_written() -> None:
    pct, deg = parse_answer(r"50\%"), parse_answer(r"30^{\circ}")
    assert (pct.value, pct.percent, pct.degree) == (50, True, False)
    assert (deg.value, deg.percent, deg.degree) == (30, False, True)
    assert parse_answer("30°").degree


def test_decimal_literals_mark_the_answer_approximate() -> None:
    assert parse_answer("0.5").approx
    assert not parse_answer(r"\frac{1}{2}").approx


def test_set_literal_keeps_its_elements() -> None:
    ans = parse_answer(r"\{1, \frac{1}{2}\}")
    assert (ans.kind, ans.value) == ("set", (1, R(1, 2)))
    assert parse_answer(r"\emptyset").value == ()


@pytest.mark.parametrize(
    ("text", "pieces"),
    [
        ("(1, 2]", ((1, 2, True, False),)),
        ("[1, 2)", ((1, 2, False, True),)),
        ("[1, 2]", ((1, 2, False, False),)),
        (r"(-\infty, 0)", ((-sympy.oo, 0, True, True),)),
        (r"(-\infty, 0) \cup [1, \infty)", ((-sympy.oo, 0, True, True), (1, sympy.oo, False, True))),
        (r"x \in [0, 1]", ((0, 1, False, False),)),
        (r"\mathbb{R}", ((-sympy.oo, sympy.oo, True, True),)),
    ],
)
def test_intervals_keep_their_ends_and_openness(text: str, pieces: tuple) -> None:
    ans = parse_answer(text)
    assert (ans.kind, ans.value) == ("interval", pieces)


def test_parenthesised_pair_is_a_tuple_that_may_be_read_as_an_open_interval_later() -> None:
    assert parse_answer("(1, 2)") == Answer("tuple", (1, 2), text="(1, 2)")
    assert parse_answer("(1, 2, 3)").value == (1, 2, 3)


def test_equation_keeps_both_sides() -> None:
    assert parse_answer("y = 2x + 1").value == (y, 2 * x + 1)
    assert parse_answer(r"x = \frac{6}{2} = 3").value == (x, 3)
    assert parse_answer("f(x) = x^2").value == (sympy.Symbol("f"), x**2)


def test_inequality_chain_keeps_terms_and_operators() -> None:
    ans = parse_answer(r"1 < x \le 3")
    assert (ans.kind, ans.value) == ("relation", ((1, x, 3), ("<", "<=")))
    assert parse_answer(r"x \geq 2").value == ((x, 2), (">=",))


def test_matrix_rows_are_kept_in_order() -> None:
    ans = parse_answer(r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}")
    assert (ans.kind, ans.value) == ("matrix", ((1, 2), (3, 4)))
    assert parse_answer(r"\begin{bmatrix} 1 \\ 2 \end{bmatrix}").value == ((1,), (2,))


@pytest.mark.parametrize("text", ["2, 3", r"2 \text{ or } 3", "2 and 3", "2 or 3", "2; 3"])
def test_several_answers_form_a_multi(text: str) -> None:
    ans = parse_answer(text)
    assert ans.kind == "multi"
    assert [a.value for a in ans.value] == [2, 3]


def test_plus_minus_expands_into_both_answers() -> None:
    ans = parse_answer(r"1 \pm \sqrt{2}")
    assert ans.kind == "multi"
    assert [a.value for a in ans.value] == [1 + sympy.sqrt(2), 1 - sympy.sqrt(2)]
    assert [a.value for a in parse_answer(r"x = \pm 2").value] == [(x, 2), (x, -2)]


@pytest.mark.parametrize(
    ("text", "value"),
    [("yes", "yes"), (r"\text{Yes.}", "yes"), (r"\textbf{Monday}", "monday"), ("(B)", "b"), ("B", "b"),
     (r"\text{(C)}", "c"), ("not enough information", "not enough information")],
)
def test_plain_text_and_choice_letters_are_text_answers(text: str, value: str) -> None:
    ans = parse_answer(text)
    assert (ans.kind, ans.value) == ("text", value)


@pytest.mark.parametrize(
    "text",
    ["", "   ", r"\frac{1}{", "(1, 2", "1 +", r"\unknowncommand{3}", "2 3", "1/0", "x = 1 < 2", r"\begin{tabular} 1 \end{tabular}",
     "#", "a @ b"],
)
def test_malformed_answers_raise_parse_error(text: str) -> None:
    with pytest.raises(ParseError):
        parse_answer(text)


def test_parse_error_is_a_value_error() -> None:
    assert issubclass(ParseError, ValueError)


# -- size guards -------------------------------------------------------------------------------------


def _unevaluated_pow(base: object, exp: object) -> sympy.Expr:
    return sympy.Pow(base, exp, evaluate=False)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # 9^(9^9) is kept as 3^(2 * 9^9): the smallest integer base, so equal towers compare equal
        (r"9^{9^{9^{9}}}", _unevaluated_pow(9, _unevaluated_pow(3, 2 * 9**9))),
        (r"100^{5000000}", _unevaluated_pow(10, 10**7)),
        (r"10^{10^{7}}", _unevaluated_pow(10, 10**7)),
        ("100000!", sympy.factorial(100000, evaluate=False)),
        (r"2^{10001}", _unevaluated_pow(2, 10001)),
        (r"\binom{100000}{3}", sympy.binomial(100000, 3, evaluate=False)),
        (r"e^{10^{9}}", _unevaluated_pow(sympy.E, 10**9)),
    ],
)
def test_towers_and_huge_factorials_stay_unevaluated(text: str, value: sympy.Expr) -> None:
    ans = parse_answer(text)
    assert ans.huge
    assert ans.value == value


def test_small_powers_and_factorials_are_evaluated_exactly() -> None:
    assert parse_answer(r"2^{100}").value == 2**100
    assert parse_answer("20!").value == 2432902008176640000
    assert not parse_answer("1000!").huge


@pytest.mark.parametrize(
    ("text", "limit"),
    [
        ("(" * 300 + "x" + ")" * 300, "max_depth"),
        (r"\sqrt{" * 100 + "2" + "}" * 100, "max_depth"),
        ("-" * 1500 + "1", "max_depth"),
        ("2^" * 500 + "2", "max_depth"),
        ("1" * 1_000_000, "max_chars"),
        ("9" * 401, "max_digits"),
    ],
)
def test_inputs_over_a_limit_raise_parse_error_naming_it(text: str, limit: str) -> None:
    with pytest.raises(ParseError, match=limit):
        parse_answer(text)


def test_limits_are_configurable() -> None:
    assert DEFAULT_LIMITS == Limits()
    with pytest.raises(ParseError, match="max_chars"):
        parse_answer("x+yz", Limits(max_chars=3))
    with pytest.raises(ParseError, match="max_digits"):
        parse_answer("12345", Limits(max_digits=4))
    with pytest.raises(ParseError, match="max_nodes"):
        parse_answer("x+2+3+4+5+6", Limits(max_nodes=5))
    with pytest.raises(ParseError, match="max_depth"):
        parse_answer("((x))", Limits(max_depth=1))
    assert parse_answer("7!", Limits(max_factorial=5)).huge
    assert parse_answer("2^{20}", Limits(max_exponent=10)).huge


def test_parsed_answers_are_cached_and_hashable() -> None:
    a = parse_answer(r"\{1, 2\}")
    assert parse_answer(r"\{1, 2\}") is a
    assert hash(a) == hash(parse_answer(r"\{1, 2\}"))
    with pytest.raises(AttributeError):
        a.kind = "tuple"  # type: ignore[misc]


SENTINEL = "/tmp/grpo_parse_sentinel"


@pytest.mark.parametrize(
    "text",
    [
        f"__import__('os').system('touch {SENTINEL}')",
        f"exec(\"open('{SENTINEL}', 'w')\")",
        "().__class__.__bases__[0].__subclasses__()",
        "Symbol('x').__class__",
        "sympify('1')",
    ],
)
def test_code_like_text_is_rejected_without_running(text: str) -> None:
    with pytest.raises(ParseError):
        parse_answer(text)
    assert not Path(SENTINEL).exists()


def test_code_like_words_are_only_ever_letters() -> None:
    ans = parse_answer("lambda: 1")  # ':' is a ratio, the word a product of symbols: nothing is called
    assert ans.value == sympy.Mul(*sympy.symbols("l a m b d a"))


def test_importing_the_parser_and_checker_does_not_import_sympy() -> None:
    code = ("import sys, grpo_rewards_math.parse, grpo_rewards_math.equivalence; "
            "sys.exit('sympy' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


@pytest.mark.parametrize("text", ["0", "12", "-3", "0.5", "-0.5", ".5", "-.5", "004", "1000.99", "00.0100",
                                  "999999999999999", "3.14159265358979323846", "-0", "1" * 200])
def test_a_bare_numeral_parses_as_the_grammar_parses_it(monkeypatch, text):
    import re

    from grpo_rewards_math import parse as parse_module

    def result(text):
        try:
            answer = parse_module._parse(text, DEFAULT_LIMITS)
        except ParseError as exc:
            return str(exc)
        return answer, type(answer.value)

    fast = result(text)
    monkeypatch.setattr(parse_module, "_BARE_NUMBER_RE", re.compile(r"(?!)"))  # the grammar's path
    assert fast == result(text)


@pytest.mark.parametrize("values", [(1, 2), (R(1, 2), R(-3, 4), 5), (R(7, 10), R(-7, 10)), (0, R(9, 1000), -1),
                                    (10**30, R(1, 3), -2)])
def test_sums_and_products_of_numbers_are_what_sympy_evaluates(values):
    from grpo_rewards_math.build import Builder

    values = [sympy.Integer(v) if isinstance(v, int) else v for v in values]
    builder = Builder(DEFAULT_LIMITS)
    for got, want in ((builder.add(list(values)), sympy.Add(*values)), (builder.mul(list(values)), sympy.Mul(*values)),
                      (builder.neg(values[0]), sympy.Mul(-1, values[0]))):
        assert got == want and type(got) is type(want)
