"""Which reasoning-gym scorers evaluate is read from reasoning-gym's code, and those run in the sandbox by default.

On main a tampered ``bitwise_arithmetic`` row ran its ``metadata.problem`` in the worker (its scorer
``eval``s it; safety.py listed the dataset as evaluating only at generation), and
``intermediate_integration`` paid 1.0 for ``Integral(<integrand>, x) + C`` (issue 42).
"""

from __future__ import annotations

import sys
import textwrap

import pytest

from grpo_rewards_gym import Accuracy, codec, make_rows
from grpo_rewards_gym.catalog import dataset_names
from grpo_rewards_gym.safety import SCANNED
from grpo_rewards_gym.scan import evaluating_datasets, evaluators, scan_class


def test_the_scan_of_the_installed_reasoning_gym_finds_the_recorded_evaluating_scorers():
    # fails when a new reasoning-gym adds (or drops) a scorer that evaluates: review safety.py's grammars then
    assert evaluating_datasets(dataset_names()) == SCANNED


def test_the_scan_follows_bitwise_arithmetics_scorer_into_the_function_that_evals_the_problem():
    assert ("verify_solution", "eval") in evaluators("bitwise_arithmetic")
    assert evaluators("basic_arithmetic") == ()  # evaluates only to generate rows


@pytest.fixture
def fake_package(tmp_path, monkeypatch):
    """A package of two modules: a dataset whose scorer reaches sympify through a method and a helper."""
    root = tmp_path / "fakegym"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "helpers.py").write_text(textwrap.dedent("""
        import sympy as sp

        def check(text):
            return sp.sympify(text) == 0

        def plain(text):
            return text.strip() == "0"
    """))
    (root / "datasets.py").write_text(textwrap.dedent("""
        from . import helpers
        from .helpers import plain

        class Evaluating:
            def score_answer(self, answer, entry):
                return 1.0 if self._verify(answer) else 0.0

            def _verify(self, answer):
                return helpers.check(answer)

        class Plain:
            def score_answer(self, answer, entry):
                return 1.0 if plain(answer) else 0.0

            def generate(self):
                return eval("1 + 1")  # generation only: not reached from score_answer
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    import fakegym.datasets

    yield fakegym.datasets
    for name in [n for n in sys.modules if n.startswith("fakegym")]:
        del sys.modules[name]


def test_a_new_evaluator_behind_a_method_and_a_helper_module_is_found(fake_package):
    assert scan_class(fake_package.Evaluating, package="fakegym") == (("check", "sympify"),)
    assert scan_class(fake_package.Plain, package="fakegym") == ()


def _tampered_bitwise(problem: str) -> dict:
    (row,) = make_rows("bitwise_arithmetic", 1, seed=0)
    entry = codec.loads(row["gym_entry"])
    entry["metadata"]["problem"] = problem
    return {**row, "gym_entry": codec.dumps(entry)}


@pytest.mark.parametrize("sandbox", [True, False])
def test_a_tampered_bitwise_problem_is_bad_metadata_and_never_runs(tmp_path, sandbox):
    sentinel = tmp_path / "SENTINEL"
    row = _tampered_bitwise(f"open('{sentinel}', 'w').write('x') and 0x1")
    assert Accuracy(sandbox=sandbox)("<answer>0x1</answer>", **row) == (None, "bad_gym_metadata")
    assert not sentinel.exists()


def test_every_bitwise_problem_fits_its_grammar():
    from grpo_rewards_gym.safety import unsafe_entry

    for row in make_rows("bitwise_arithmetic", 60, seed=5):
        assert unsafe_entry("bitwise_arithmetic", codec.loads(row["gym_entry"])) is None


def test_a_scanned_scorer_runs_in_the_sandbox_by_default_so_a_grammar_hole_cannot_reach_the_host(tmp_path, monkeypatch):
    pytest.importorskip("grpo_rewards_code")
    from grpo_rewards_code.sandbox import SandboxUnavailable, get_sandbox

    try:
        get_sandbox()
    except SandboxUnavailable as exc:
        pytest.skip(f"this machine cannot run a sandbox: {exc}")
    import grpo_rewards_gym.scoring as scoring

    monkeypatch.setattr(scoring, "unsafe_entry", lambda name, entry: None)  # as if the grammar had a hole
    inside, outside = tmp_path / "inside", tmp_path / "outside"
    assert Accuracy()("<answer>0x1</answer>", **_tampered_bitwise(f"open('{inside}', 'w').write('x') and 0x1"))[
        1] in ("correct", "wrong", "unscorable")
    assert not inside.exists()  # the sandbox's /tmp is its own, and the rest of the host is read-only
    Accuracy(sandbox=False)("<answer>0x1</answer>", **_tampered_bitwise(f"open('{outside}', 'w').write('x') and 0x1"))
    assert outside.read_text() == "x"  # in the worker process the same row writes the file


def test_an_unevaluated_integral_of_the_integrand_is_not_a_solution():
    paid = 0
    for seed in range(6):
        (row,) = make_rows("intermediate_integration", 1, seed=seed)
        metadata = codec.loads(row["gym_entry"])["metadata"]
        restated = f"<answer>Integral({metadata['integrand']}, {metadata['variable']}) + C</answer>"
        assert Accuracy(sandbox=False)(restated, **row) == (0.0, "unevaluated")
        for operator in ("Derivative", "Sum", "Limit"):
            assert Accuracy(sandbox=False)(f"<answer>{operator}(x, x) + C</answer>", **row)[1] in (
                "unevaluated", "refused")
        paid += Accuracy(sandbox=False)(f"<answer>{row['answer']}</answer>", **row)[0] == 1.0
    assert paid >= 5  # the gold still pays (one gold of reasoning-gym's is itself an unevaluated Integral)


def test_the_hack_corpus_holds_the_restated_integral():
    from grpo_rewards_gym.hacks import corpus

    names = {entry["name"] for entry in corpus()}
    assert {"intermediate_integration_unevaluated_integral", "simple_integration_unevaluated_integral"} <= names
