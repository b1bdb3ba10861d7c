r"""Which answers may reach a reasoning-gym scorer that evaluates them.

Some reasoning-gym scorers evaluate the model's answer (:data:`ANSWER_EVALUATORS`): with sympy's ``parse_expr``, which calls
``eval`` with Python's builtins in reach, or with Python's own ``eval`` (grids and lists read with
``eval(answer)``); two evaluate the gold answer (:data:`GOLD_EVALUATORS`). Worker processes bound their
time but are no sandbox, so an answer for those datasets must pass a check first:

- every dataset: no ``__`` (the way out of any evaluator's namespace);
- every evaluating dataset: ASCII only (Python folds full-width and other compatibility letters in
  names to ASCII, so ``ｅｘｅｃ`` would otherwise pass as an unknown name and run as ``exec``);
- Python's ``eval``: no ``(``: without a call, a Python expression can only build literals;
- sympy's ``parse_expr``: no quotes, backslashes or attribute access (``.`` before a letter), and every
  name either one letter (a symbol: ``x``, ``C``) or a math function of :data:`MATH_NAMES` —
  ``open``, ``exec``, ``sympify`` and ``lambda`` are refused.

The sweep (``bench/gym.md``) checks that every gold answer still passes. The lists were read from
reasoning-gym 0.1.25's ``score_answer`` methods; ``tests/gym/test_gym_safety.py`` fails when a
dataset's code calls an evaluator and is in none of the lists.

>>> unsafe_answer("countdown", "67 + 50 - (20 - 82)"), unsafe_answer("countdown", "open('f', 'w')")
(False, True)
>>> unsafe_answer("n_queens", "[['Q', '_'], ['_', 'Q']]"), unsafe_answer("n_queens", "print(1)")
(False, True)
>>> unsafe_answer("countdown", "ｅｘｅｃ(1)"), unsafe_answer("basic_arithmetic", "４")
(True, False)
"""

from __future__ import annotations

import re

#: datasets whose ``score_answer`` evaluates the model's answer, and with what
ANSWER_EVALUATORS = {
    "countdown": "sympy", "puzzle24": "sympy", "simple_integration": "sympy", "intermediate_integration": "sympy",
    "polynomial_multiplication": "sympy",
    "binary_matrix": "python", "n_queens": "python", "spiral_matrix": "python", "string_insertion": "python",
}
#: datasets whose ``score_answer`` evaluates the gold answer of the row's entry
GOLD_EVALUATORS = {"polynomial_multiplication": "sympy", "number_sorting": "python"}
#: datasets whose code calls an evaluator only to generate rows, never on an answer (read, not guessed)
GENERATION_ONLY = frozenset({"basic_arithmetic", "bitwise_arithmetic", "codeio", "propositional_logic"})

#: the names a math answer may use besides one-letter symbols
MATH_NAMES = frozenset({
    "sin", "cos", "tan", "cot", "sec", "csc", "asin", "acos", "atan", "acot", "asec", "acsc", "atan2",
    "sinh", "cosh", "tanh", "coth", "asinh", "acosh", "atanh", "exp", "log", "ln", "sqrt", "cbrt", "root",
    "Abs", "abs", "pi", "oo", "factorial", "floor", "ceiling", "sign", "Rational", "Integer", "Float",
})
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_ATTRIBUTE = re.compile(r"\.\s*[A-Za-z_]")


def _unsafe_for(evaluator: str | None, text: str) -> bool:
    if evaluator is not None and not text.isascii():
        return True
    if evaluator == "python":
        return "(" in text
    if evaluator == "sympy":
        if any(c in text for c in "'\"\\`") or _ATTRIBUTE.search(text):
            return True
        names = (name.rstrip("0123456789") for name in _NAME.findall(text))
        return any(len(name) > 1 and name not in MATH_NAMES for name in names)
    return False


def unsafe_answer(dataset: str, answer: str) -> bool:
    """Whether ``answer`` must not be passed to the scorer of ``dataset`` (see the module's rules)."""
    return "__" in answer or _unsafe_for(ANSWER_EVALUATORS.get(dataset), answer)


def unsafe_gold(dataset: str, gold: str) -> bool:
    """Whether the scorer of ``dataset`` would evaluate ``gold`` as code (a tampered row)."""
    evaluator = GOLD_EVALUATORS.get(dataset)
    return evaluator is not None and ("__" in gold or _unsafe_for(evaluator, gold))
