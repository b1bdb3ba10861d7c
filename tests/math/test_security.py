"""Model outputs that would run code if evaluated are scored without running anything."""

from __future__ import annotations

import builtins

import pytest

import grpo_rewards_math
from grpo_rewards_math.correctness import OUTCOMES, clear_cache

PAYLOADS = [
    "__import__('os').system('touch {s}')",
    "__import__(\"os\").system(\"touch {s}\")",
    "lambda: __import__('os').system('touch {s}')",
    "(lambda f: f('touch {s}'))(__import__('os').system)",
    "().__class__.__bases__[0].__subclasses__()[0].__init__.__globals__['os'].system('touch {s}')",
    "Symbol('x').__class__.__init__.__globals__['__builtins__']['__import__']('os').system('touch {s}')",
    "Symbol('x').__class__.__mro__[-1].__subclasses__()",
    "Function('f')(__import__('os').system('touch {s}'))",
    "S('__import__(\"os\").system(\"touch {s}\")')",
    "sympify(\"__import__('os').system('touch {s}')\")",
    "Matrix([[__import__('os').system('touch {s}')]])",
    "exec(\"import os; os.system('touch {s}')\")",
    "eval(\"__import__('os').system('touch {s}')\")",
    "open('{s}', 'w').write('pwned')",
    "[__import__('os').system('touch {s}') for _ in (1,)]",
    "x = __import__('os').system('touch {s}')",
    "\\text{{__import__(\"os\").system(\"touch {s}\")}}",
    "\\operatorname{{__import__}}('os').system('touch {s}')",
    "\\frac{{__import__('os').system('touch {s}')}}{{1}}",
    "\\sqrt{{().__class__.__base__.__subclasses__()}}",
    "globals()['__builtins__'].__import__('os').system('touch {s}')",
    "getattr(__import__('os'), 'system')('touch {s}')",
    "import os; os.system('touch {s}')",
]


def _payloads(sentinel) -> list[str]:
    return [p.format(s=sentinel) for p in PAYLOADS]


@pytest.fixture
def no_eval(monkeypatch):
    """Record every text handed to sympy's string parser or to eval/exec that carries a payload."""
    import sympy.parsing.sympy_parser as sympy_parser

    seen: list[str] = []
    real_eval, real_exec, real_parse_expr = builtins.eval, builtins.exec, sympy_parser.parse_expr

    def spy(real):
        def call(source, *args, **kwargs):
            if isinstance(source, str) and any(m in source for m in ("SENTINEL", "__import__", "__subclasses__")):
                seen.append(source)
            return real(source, *args, **kwargs)
        return call

    monkeypatch.setattr(builtins, "eval", spy(real_eval))
    monkeypatch.setattr(builtins, "exec", spy(real_exec))
    monkeypatch.setattr(sympy_parser, "parse_expr", spy(real_parse_expr))
    return seen


@pytest.mark.parametrize("fmt", ["bare", "boxed", "dollars"])
def test_code_in_completions_is_scored_without_running(tmp_path, no_eval, fmt):
    sentinel = tmp_path / "SENTINEL"
    clear_cache()
    wrap = {"bare": "{}", "boxed": "\\boxed{{{}}}", "dollars": "The answer is ${}$."}[fmt]
    texts = [wrap.format(p) for p in _payloads(sentinel)]
    reward = grpo_rewards_math.make_accuracy(options={"timeout": 5.0})
    values = reward(completions=texts, solution=["42"] * len(texts))
    assert values == [0.0] * len(texts)
    assert set(reward.stats) <= {"wrong", "no_answer", "timeout"}
    assert not sentinel.exists()
    assert no_eval == []


def test_code_in_gold_answers_is_never_run(tmp_path, no_eval):
    sentinel = tmp_path / "SENTINEL"
    clear_cache()
    golds = _payloads(sentinel)
    reward = grpo_rewards_math.make_accuracy(options={"timeout": 5.0})
    values = reward(completions=[f"\\boxed{{{g}}}" for g in golds], solution=golds)
    assert all(v in (None, 0.0, 1.0) for v in values)
    assert set(reward.stats) <= set(OUTCOMES)
    assert not sentinel.exists()
    assert no_eval == []


def test_equivalence_functions_never_evaluate_payloads_in_process(tmp_path, no_eval):
    from grpo_rewards_math.equivalence import quick_equal, symbolic_equal
    from grpo_rewards_math.parse import ParseError

    sentinel = tmp_path / "SENTINEL"
    for payload in _payloads(sentinel):
        for gold, pred in (("x + 1", payload), (payload, payload), (payload, "1")):
            try:
                quick_equal(gold, pred)
                symbolic_equal(gold, pred)
            except ParseError:
                pass
    assert not sentinel.exists()
    assert no_eval == []
