"""Answers a reasoning-gym scorer would run as code never reach it; every evaluating scorer is listed."""

from __future__ import annotations

import inspect

import pytest

from grpo_rewards_gym import Accuracy, codec, make_rows
from grpo_rewards_gym.safety import (
    ANSWER_EVALUATORS,
    ENTRY_EVALUATED,
    GOLD_EVALUATORS,
    GRAMMARS,
    SCANNED,
    unsafe_answer,
    unsafe_entry,
)

PAYLOADS = [
    "open('{s}', 'w').write('pwned')",
    "exec(\"open('{s}', 'w')\")",
    "__import__('os').system('touch {s}')",
    "sympify(\"open('{s}', 'w')\")",
    "(lambda: open('{s}', 'w'))()",
    "x.func.__globals__",
]
#: no call, so nothing runs under Python's eval; refused where sympy reads the answer
ATTRIBUTE_READS = ["S.Zero.func", "x.args"]


@pytest.mark.parametrize("dataset", sorted(ANSWER_EVALUATORS))
def test_code_in_an_answer_is_refused_and_never_runs(dataset, tmp_path):
    sentinel = tmp_path / "SENTINEL"
    (row,) = make_rows(dataset, 1, seed=0)
    score = Accuracy()
    for payload in PAYLOADS + (ATTRIBUTE_READS if ANSWER_EVALUATORS[dataset] == "sympy" else []):
        assert score(f"<answer>{payload.format(s=sentinel)}</answer>", **row) == (0.0, "refused"), payload
    assert not sentinel.exists()


def test_real_math_answers_pass_the_sympy_check():
    for answer in ["10*(8 - 5) - 6", "-3*x**2*sin(x) + C", "exp(2*x)/2 + log(Abs(x)) + C", "2.5*x + 1e-3",
                   "sqrt(2)*pi", "atan(x)"]:
        assert not unsafe_answer("intermediate_integration", answer), answer
    assert unsafe_answer("countdown", "6 * 4 if open else 0")
    assert not unsafe_answer("leg_counting", "open('f')")  # a scorer that never evaluates gets any text


def test_full_width_letters_that_python_folds_to_a_name_are_refused_by_evaluating_scorers():
    # Python reads the name "ｅｘｅｃ" as exec; the ASCII name rules never see it
    assert unsafe_answer("countdown", "ｅｘｅｃ(1)")
    assert unsafe_answer("n_queens", "[ｑ]")
    assert not unsafe_answer("basic_arithmetic", "ｅｘｅｃ(1)")  # a scorer that never evaluates gets any text


def test_a_tampered_gold_that_its_scorer_would_evaluate_is_bad_metadata(tmp_path):
    from grpo_rewards_gym import codec

    (row,) = make_rows("number_sorting", 1, seed=0)
    entry = codec.loads(row["gym_entry"])
    entry["answer"] = f"open('{tmp_path / 'SENTINEL'}', 'w')"
    tampered = {**row, "gym_entry": codec.dumps(entry)}
    assert Accuracy()(f"<answer>{row['answer']}</answer>", **tampered) == (None, "bad_gym_metadata")
    assert not (tmp_path / "SENTINEL").exists()


def test_every_dataset_with_a_grammar_is_one_the_scan_finds():
    # the scan (tests/gym/test_gym_scan.py) decides what runs in the sandbox; the grammars are the first wall
    assert set(ANSWER_EVALUATORS) | set(GOLD_EVALUATORS) | set(ENTRY_EVALUATED) <= SCANNED


@pytest.mark.parametrize(("dataset", "answer"), [
    ("string_insertion", 'entry["answer"]'),  # was paid 0.1: eval read the scorer's own gold
    ("string_insertion", "oracle_answer"),
    ("n_queens", '[[entry["metadata"]["valid_answers"][0]]]'),  # was paid 0.5
    ("n_queens", "Q_Q"),
    ("spiral_matrix", 'entry["answer"].split()'),
    ("binary_matrix", "[[answer]]"),
    ("countdown", "9**9**9"),
    ("countdown", "1if open else 0"),
    ("simple_integration", "x1 + C"),
    ("polynomial_multiplication", "sin(x)"),
])
def test_an_answer_outside_its_datasets_grammar_is_refused(dataset, answer):
    (row,) = make_rows(dataset, 1, seed=0)
    assert Accuracy()(f"<answer>{answer}</answer>", **row) == (0.0, "refused")


@pytest.mark.parametrize("dataset", ["simple_integration", "intermediate_integration"])
@pytest.mark.parametrize("integrand", ["__import__('os').system('touch {s}') or x", "open('{s}', 'w') and x",
                                       "x + exec", "S('x')"])
def test_a_tampered_integrand_is_bad_metadata_and_never_runs(dataset, integrand, tmp_path):
    sentinel = tmp_path / "SENTINEL"
    (row,) = make_rows(dataset, 1, seed=0)
    entry = codec.loads(row["gym_entry"])
    entry["metadata"]["integrand"] = integrand.format(s=sentinel)
    tampered = {**row, "gym_entry": codec.dumps(entry)}
    assert unsafe_entry(dataset, entry) == "metadata.integrand"
    assert Accuracy()(f"<answer>{row['answer']}</answer>", **tampered) == (None, "bad_gym_metadata")
    assert not sentinel.exists()


def test_a_tampered_variable_name_is_bad_metadata():
    (row,) = make_rows("simple_integration", 1, seed=0)
    entry = codec.loads(row["gym_entry"])
    entry["metadata"]["variable"] = "open"
    assert unsafe_entry("simple_integration", entry) == "metadata.variable"


@pytest.mark.parametrize("dataset", sorted(set(ANSWER_EVALUATORS) | set(ENTRY_EVALUATED)))
def test_every_gold_answer_and_evaluated_field_fits_its_grammar(dataset):
    for row in make_rows(dataset, 40, seed=11):
        entry = codec.loads(row["gym_entry"])
        assert unsafe_entry(dataset, entry) is None, entry
        assert not unsafe_answer(dataset, str(row["answer"]), entry), row["answer"]


def test_answers_in_list_form_keep_the_partial_credit_their_scorer_gives():
    score = Accuracy(sandbox=False)  # the scorer's own values (test_gym_sandboxed.py: the same in the sandbox)
    (row,) = make_rows("string_insertion", 1, seed=0)
    letters = "[" + ", ".join(repr(c) for c in row["answer"]) + "]"
    assert score(f"<answer>{letters}</answer>", **row) == (0.1, "partial")
    (row,) = make_rows("n_queens", 1, seed=0)
    board = [line.split() for line in row["answer"].splitlines()]
    assert score(f"<answer>{board!r}</answer>", **row) == (0.5, "partial")


def test_no_bare_name_a_grammar_admits_is_defined_where_its_scorer_evaluates():
    import builtins
    import re as re_module

    from reasoning_gym.factory import DATASETS

    cls = DATASETS["string_insertion"][0]  # its real answer is one bare name: ABCDE
    defined = set(vars(inspect.getmodule(cls))) | set(dir(builtins)) | set(cls.score_answer.__code__.co_varnames)
    assert {name for name in defined if re_module.fullmatch(r"[A-E]+", name)} == set()
    # n_queens: a bare Q or _ only on a board, which Python cannot read as an expression at all
    assert [unsafe_answer("n_queens", a) for a in ("_", "Q", "[_]", "[['Q', _]]", "_ Q\nQ _")] == [
        True, True, True, True, False]
    assert set(GRAMMARS) >= set(ANSWER_EVALUATORS)


@pytest.mark.parametrize(("dataset", "text"), [("spiral_matrix", " " * 100 + "!"), ("spiral_matrix", "1" * 100 + "!"),
                                               ("simple_integration", "1 " * 100 + "e!"),
                                               ("string_insertion", "AB " * 100 + "!")])
def test_a_long_near_miss_is_refused_without_backtracking(dataset, text):
    # the grammars are atomic: nested repeats such as (\s+)* would backtrack 2**100 ways here
    assert unsafe_answer(dataset, text)
