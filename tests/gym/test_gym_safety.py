"""Answers a reasoning-gym scorer would run as code never reach it; every evaluating scorer is listed."""

from __future__ import annotations

import inspect
import re

import pytest

from grpo_rewards_gym import Accuracy, make_rows
from grpo_rewards_gym.catalog import dataset_names
from grpo_rewards_gym.safety import ANSWER_EVALUATORS, GENERATION_ONLY, GOLD_EVALUATORS, unsafe_answer

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
    for answer in ["10*(8 - 5) - 6", "-3*x**2*sin(x) + C", "exp(2*x)/2 + log(Abs(x)) + C", "2.5*x1 + 1e-3",
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


def test_every_dataset_whose_code_calls_an_evaluator_is_listed():
    from reasoning_gym.factory import DATASETS

    evaluator = re.compile(r"(?<![\w.])(eval|exec|parse_expr|sympify)\(|\.(parse_expr|sympify)\(")
    calling = {name for name in dataset_names() if evaluator.search(inspect.getsource(DATASETS[name][0]))}
    assert calling - set(ANSWER_EVALUATORS) - set(GOLD_EVALUATORS) - GENERATION_ONLY == set()
