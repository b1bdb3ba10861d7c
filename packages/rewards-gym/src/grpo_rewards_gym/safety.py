r"""Which answers, and which row fields, may reach a reasoning-gym scorer that evaluates them.

Some reasoning-gym scorers evaluate the model's answer (:data:`ANSWER_EVALUATORS`): with sympy's
``parse_expr``, which calls ``eval`` with Python's builtins in reach, or with Python's own ``eval``
(grids and lists read with ``eval(answer)``); some evaluate fields of the row's entry
(:data:`ENTRY_EVALUATED`: the gold answer of two, the ``integrand`` of the integration datasets).
Worker processes bound their time but are no sandbox, so what reaches an evaluator must first be
shown to be what a real answer can be: each evaluating dataset has a **grammar** (:data:`GRAMMARS`),
the tokens its answers are made of, and a text is let through only when it is made of those
tokens alone. Names are the dangerous part (``entry["answer"]`` reads the scorer's own variables,
``open`` calls a builtin), so a grammar admits only the dataset's own: none for countdown and
puzzle24 (numbers, ``+ - * /``, brackets); the row's variable, ``C`` and math functions for the
integration datasets; the row's variables for polynomial_multiplication; ``Q``/``_`` for n_queens;
the letters ``A``-``E`` for string_insertion; numbers, brackets and commas for the matrices and
number lists. Quotes only around one of the dataset's own tokens (``'Q'``, ``'B'``, ``'4.5'``).

Besides: no ``__`` for any dataset, and ASCII only for every evaluating one. The sweep
(``bench/gym.md``) checks that every gold answer passes its grammar. Which scorers evaluate is not
kept by hand: :mod:`grpo_rewards_gym.scan` reads the installed reasoning-gym's scoring code, and
``gym.accuracy`` runs every scorer it finds in the sandbox by default; :data:`SCANNED` records what it
finds in 0.1.25, and ``tests/gym/test_gym_scan.py`` fails when a new version changes that (so the
grammars here are reviewed), and checks that no bare name a grammar admits is defined where the scorer
evaluates it.

>>> unsafe_answer("countdown", "67 + 50 - (20 - 82)"), unsafe_answer("countdown", "open('f', 'w')")
(False, True)
>>> unsafe_answer("n_queens", "[['Q', '_'], ['_', 'Q']]"), unsafe_answer("n_queens", '[[entry["answer"]]]')
(False, True)
>>> unsafe_answer("string_insertion", "ABCDE"), unsafe_answer("string_insertion", 'entry["answer"]')
(False, True)
>>> unsafe_answer("countdown", "ｅｘｅｃ(1)"), unsafe_answer("basic_arithmetic", "４")
(True, False)
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from grpo_rewards.patterns import atomic

#: datasets whose ``score_answer`` evaluates the model's answer, and with what
ANSWER_EVALUATORS = {
    "countdown": "sympy", "puzzle24": "sympy", "simple_integration": "sympy", "intermediate_integration": "sympy",
    "polynomial_multiplication": "sympy",
    "binary_matrix": "python", "n_queens": "python", "spiral_matrix": "python", "string_insertion": "python",
}
#: datasets whose ``score_answer`` evaluates the gold answer of the row's entry
GOLD_EVALUATORS = {"polynomial_multiplication": "sympy", "number_sorting": "python"}
#: every field of a row's entry that reaches an evaluator, per dataset: (path, grammar of its text)
ENTRY_EVALUATED: dict[str, tuple[tuple[tuple[str, ...], str], ...]] = {
    "polynomial_multiplication": ((("answer",), "polynomial_multiplication"),),
    "number_sorting": ((("answer",), "number_list"),),
    "simple_integration": ((("metadata", "integrand"), "simple_integration"),),
    "intermediate_integration": ((("metadata", "integrand"), "intermediate_integration"),),
    "bitwise_arithmetic": ((("metadata", "problem"), "bitwise_arithmetic"),),
}
#: what :func:`grpo_rewards_gym.scan.evaluating_datasets` finds in reasoning-gym 0.1.25 (the scan decides at run
#: time; this record makes a new version's change fail a test): the datasets above, bitwise_arithmetic
#: (``eval(entry["metadata"]["problem"])``) and propositional_logic (a ``simplify`` it cannot resolve)
SCANNED = frozenset({
    "binary_matrix", "bitwise_arithmetic", "countdown", "intermediate_integration", "n_queens", "number_sorting",
    "polynomial_multiplication", "propositional_logic", "puzzle24", "simple_integration", "spiral_matrix",
    "string_insertion",
})

#: the math functions and constants an integration answer may name besides its variable and ``C``
MATH_NAMES = frozenset({
    "sin", "cos", "tan", "cot", "sec", "csc", "asin", "acos", "atan", "acot", "asec", "acsc", "atan2",
    "sinh", "cosh", "tanh", "coth", "asinh", "acosh", "atanh", "exp", "log", "ln", "sqrt", "cbrt", "root",
    "Abs", "abs", "pi", "E", "oo", "factorial", "floor", "ceiling", "sign", "Rational", "Integer", "Float",
})

_NUMBER = r"\d+(?:\.\d+)?(?:[eE][+-]?\d+)?"
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def _tokens(pattern: str) -> re.Pattern[str]:
    r"""``pattern``'s tokens, any number, taken atomically (:func:`grpo_rewards.patterns.atomic`): the greedy run
    of tokens is found once and never backtracked into, so a match is linear in the text (a plain ``(...)*``
    backtracks exponentially on a near miss such as ``(\s+)*``); no token's own run is ever given back to a later
    part either (a token never ends where another must begin), so its quantifiers need no atomic group of their
    own."""
    return re.compile(atomic(f"(?:{pattern})*", "tokens"))


_ARITHMETIC = _tokens(r"\s+|\d+|[-+/()]|\*(?!\*)")


#: The grammar of each evaluating dataset: ``(tokens, names)``; ``tokens`` must cover the whole text,
#: and every name in it must be one of ``names`` (``"{variables}"``: the row's own variables).
GRAMMARS: dict[str, tuple[re.Pattern[str], frozenset[str]]] = {
    # arithmetic on the given numbers; no powers (a real answer has none, and 9**9**9 would run long)
    "countdown": (_ARITHMETIC, frozenset()),
    "puzzle24": (_ARITHMETIC, frozenset()),
    "simple_integration": (_tokens(rf"\s+|{_NUMBER}|\*\*|[-+*/()]|[A-Za-z]\w*"), MATH_NAMES | {"C", "{variables}"}),
    "intermediate_integration": (_tokens(rf"\s+|{_NUMBER}|\*\*|[-+*/(),]|[A-Za-z]\w*"),
                                 MATH_NAMES | {"C", "Integral", "I", "{variables}"}),
    "polynomial_multiplication": (_tokens(rf"\s+|{_NUMBER}|\*\*|[-+*/()]|[A-Za-z]\w*"), frozenset({"{variables}"})),
    # a grid: rows of numbers, or Python lists of them
    "binary_matrix": (_tokens(r"\s+|\d+|[-\[\],]"), frozenset()),
    "spiral_matrix": (_tokens(r"\s+|\d+|[-\[\],]"), frozenset()),
    # a board of Q and _ (two tokens at least, so never one name), or a Python list of lists of 'Q' and '_'
    "n_queens": (_tokens(r"\s+|[\[\],]|'[Q_]'|\"[Q_]\"|[Q_]"), frozenset({"Q", "_"})),
    # the letters A to E, or a Python list of them
    "string_insertion": (_tokens(r"\s+|[\[\],]|'[A-E]'|\"[A-E]\"|[A-E]+"), frozenset({"A-E"})),
    # hexadecimal and decimal integers with shifts and arithmetic: what bitwise_arithmetic's problem is
    "bitwise_arithmetic": (_tokens(r"\s+|0x[0-9a-fA-F]+|\d+|<<|>>|[-+*()]"), frozenset()),
    # a gold list of numbers, quoted or not (number_sorting writes "['-1.5', '2.0']")
    "number_list": (_tokens(rf"\s+|[\[\],]|'-?{_NUMBER}'|\"-?{_NUMBER}\"|-?{_NUMBER}"), frozenset()),
}
_LETTERS_A_TO_E = re.compile(r"[A-E]+")
_BARE_QUEENS = re.compile(r"[Q_]")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_LITERAL = re.compile(rf"(?<![\w.])(?:0x[0-9a-fA-F]+|{_NUMBER})")


def _names_allowed(names: Iterable[str], allowed: frozenset[str], variables: frozenset[str]) -> bool:
    for name in names:
        if name in allowed or (name in variables and "{variables}" in allowed):
            continue
        if "A-E" in allowed and _LETTERS_A_TO_E.fullmatch(name):
            continue
        return False
    return True


def fits_grammar(grammar: str, text: str, variables: Iterable[str] = ()) -> bool:
    """Whether ``text`` is made only of the tokens of ``grammar`` (a key of :data:`GRAMMARS`)."""
    tokens, allowed = GRAMMARS[grammar]
    if not text.isascii() or "__" in text or tokens.fullmatch(text) is None:
        return False
    # quoted tokens and numbers are literals; every other run of letters and digits is read as a name
    bare = _LITERAL.sub(" ", _QUOTED.sub(" ", text))
    return _names_allowed(_NAME.findall(bare), allowed, frozenset(variables))


def _variables(entry: Any) -> frozenset[str]:
    """The row's own variable names (integration: ``variable``; polynomials: ``variables``), one letter each."""
    metadata = entry.get("metadata") if isinstance(entry, dict) else None
    if not isinstance(metadata, dict):
        return frozenset()
    found = metadata.get("variables", [metadata.get("variable")])
    if isinstance(found, str):
        found = [found]
    if not isinstance(found, (list, tuple)):
        return frozenset()
    return frozenset(v for v in found if isinstance(v, str) and re.fullmatch(r"[A-Za-z]", v))


def unsafe_answer(dataset: str, answer: str, entry: Any = None) -> bool:
    """Whether ``answer`` must not be passed to the scorer of ``dataset``: not made of its grammar's tokens.

    ``entry``: the row's entry, whose variables the answer may name (the integration and polynomial datasets).
    """
    if "__" in answer:
        return True
    if dataset not in ANSWER_EVALUATORS:
        return False
    variables = _variables(entry)
    if dataset in ("simple_integration", "intermediate_integration", "polynomial_multiplication") and not variables:
        variables = frozenset("xyzXYZ")  # a row without its metadata: the generators' own choices
    if dataset == "n_queens" and _BARE_QUEENS.search(_QUOTED.sub(" ", answer)) and (
            "[" in answer or len(answer.split()) < 2):
        return True  # a bare Q or _ is read as a name unless the answer is a board (not an expression at all)
    return not fits_grammar(dataset, answer, variables)


#: sympy's unevaluated operators (and the functions that build them): an answer holding one restates the problem
UNEVALUATED = frozenset({"Integral", "integrate", "Derivative", "diff", "Sum", "summation", "Limit", "limit",
                         "Product", "product", "Subs"})


def unevaluated_answer(dataset: str, answer: str, entry: Any = None) -> bool:
    """Whether ``answer``, for a dataset whose scorer reads it with sympy, holds an unevaluated operator
    (:data:`UNEVALUATED`): ``Integral(4*sqrt(-2*x - 8), x) + C`` differentiates back to the integrand, so
    intermediate_integration's scorer paid it 1.0, but it is the question, not a solution.

    >>> unevaluated_answer("intermediate_integration", "Integral(x**2, x) + C"), unevaluated_answer(
    ...     "intermediate_integration", "x**3/3 + C")
    (True, False)
    """
    if ANSWER_EVALUATORS.get(dataset) != "sympy":
        return False
    bare = _LITERAL.sub(" ", _QUOTED.sub(" ", answer))
    return any(name in UNEVALUATED for name in _NAME.findall(bare))


def _field(entry: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(entry, dict):
            return None
        entry = entry.get(key)
    return entry


def unsafe_entry(dataset: str, entry: Any) -> str | None:
    """The first field of ``entry`` its scorer would evaluate and that is not what the dataset writes there
    (a tampered row), as ``"metadata.integrand"``; None when every such field fits its grammar."""
    evaluated = ENTRY_EVALUATED.get(dataset, ())
    if not evaluated:
        return None
    metadata = entry.get("metadata") if isinstance(entry, dict) else None
    if isinstance(metadata, dict):  # names the scorer turns into symbols must be plain names
        declared = metadata.get("variables", [metadata["variable"]] if "variable" in metadata else [])
        if isinstance(declared, str):
            declared = [declared]
        if not isinstance(declared, (list, tuple)) or any(
                not isinstance(v, str) or not re.fullmatch(r"[A-Za-z]", v) for v in declared):
            return "metadata.variable" if "variable" in metadata else "metadata.variables"
    variables = _variables(entry)
    for path, grammar in evaluated:
        value = _field(entry, path)
        if value is None:
            continue
        if not isinstance(value, str) or not fits_grammar(grammar, value, variables or frozenset("xyzXYZ")):
            return ".".join(path)
    return None

