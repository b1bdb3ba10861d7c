"""The scorers of answer correctness: ``math.accuracy`` and ``math.reasoning_accuracy``.

Each is a per-sample scorer that returns a value and an outcome label (:data:`OUTCOMES`); the
core's ``Reward`` counts the labels and logs them as ``outcomes/<metric>/<label>``. A sample is
scored in two steps. :meth:`Accuracy.quick` runs in the calling process: it extracts the answer
and compares it with the bounded checks (``quick_equal``: normalised text, exact rationals,
numbers within ``rel_tol``); most samples are decided there in well under a millisecond. The
samples it cannot decide go to the core's worker processes, where :meth:`Accuracy.__call__` runs
the symbolic comparison under the core's hard deadline (the registered ``timeout`` of 1 s; a
worker that overruns is killed and the sample scores ``timeout_value`` 0.0, labelled
``timeout``). Nothing in a completion or a gold answer is ever evaluated: the parser builds sympy
objects itself.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from functools import lru_cache
from typing import Any

from grpo_rewards import completion_text, params

from .bounded import clear_cache as bounded_cache_clear
from .conventions import UNITS, log_base_value
from .echo import echoes_prompt
from .equivalence import conventions_of, decide, is_plain_number
from .extract import FORMATS, POSITIONS, Reading, after_delimiter, extract_gold, plain_words, read, reading
from .latex_lexer import ParseError
from .parse import read_answer

#: Outcome labels, one per sample: 1.0 for ``correct``; 0.0 for ``wrong``, ``no_answer``
#: (nothing to extract, or no reasoning delimiter), ``prompt_echo`` (the answer only repeats an
#: expression of the question, see :mod:`grpo_rewards_math.echo`), ``timeout`` (the symbolic check overran the
#: core's deadline) and ``error`` (the symbolic check failed); ``None`` for ``no_gold`` (the row's solution is
#: empty or missing: ``None``, as a dataset gives a row without the value), ``gold_unparsable``
#: (the sample is left out, never a free 1.0) and ``undecided`` (the answers are past the parser's size
#: bounds, a tower kept unevaluated, and their structure shows neither sameness nor a difference: never
#: ``wrong`` for an answer that was not shown to differ).
OUTCOMES = ("correct", "wrong", "no_answer", "prompt_echo", "no_gold", "gold_unparsable", "undecided", "timeout",
            "error")

_VALUES: dict[str, float | None] = {"correct": 1.0, "no_gold": None, "gold_unparsable": None, "undecided": None}

_CACHE_SIZE = 50_000
_symbolic_cache: OrderedDict[tuple[str, str, Any], str] = OrderedDict()
_cache_lock = threading.Lock()


def _cache_get(key: tuple[str, str, Any]) -> str | None:
    """The remembered label (``correct``/``wrong``) of a symbolic check of (gold, pred, rel_tol)."""
    with _cache_lock:
        label = _symbolic_cache.get(key)
        if label is not None:
            _symbolic_cache.move_to_end(key)
        return label


def _cache_put(key: tuple[str, str, Any], label: str) -> None:
    with _cache_lock:
        _symbolic_cache[key] = label
        while len(_symbolic_cache) > _CACHE_SIZE:
            _symbolic_cache.popitem(last=False)


def clear_cache() -> None:
    """Forget the remembered results of symbolic and bounded checks and the remembered readings of
    golds and completions."""
    with _cache_lock:
        _symbolic_cache.clear()
    bounded_cache_clear()
    _parsable.cache_clear()
    _text_gold.cache_clear()
    _gold_of.cache_clear()
    _answer_of.cache_clear()


@lru_cache(maxsize=4096)
def _parsable(answer: str) -> bool:
    """Whether the parser can read ``answer`` (with light trees: no sympy in the calling process;
    parse errors and parser bugs both say no)."""
    if is_plain_number(answer):  # a plain number always parses (tests/math/test_plain_numbers.py)
        return True
    try:
        read_answer(answer)
    except ParseError:
        return False
    except Exception:  # a parser bug on a dataset answer: leave the sample out, never guess
        return False
    return True


@lru_cache(maxsize=4096)
def _text_gold(gold: str) -> bool:
    """Whether a (parsable) gold is a plain-text answer such as ``\\text{yes}``."""
    try:
        return read_answer(gold).kind == "text"
    except Exception:  # unreadable after all: not a text gold
        return False


@lru_cache(maxsize=4096, typed=True)  # typed: the gold True is not the gold 1
def _gold_of(solution: Any) -> str | None:
    """The gold answer a dataset value gives, or None when the parser cannot read it (remembered: a
    GRPO group of completions shares one gold)."""
    gold = extract_gold(solution, accept=_parsable)
    return gold if gold is not None and _parsable(gold) else None


#: completions up to this long have their extracted answer remembered (identical answers in a group)
_REMEMBERED_CHARS = 2_000

#: a completion's answer, remembered per (text, reading)
_answer_of = lru_cache(maxsize=4096)(read)


class SymbolicCheck:
    """Picklable ``(gold, pred) -> bool | None``: ``symbolic_equal`` (slow: run under a deadline; None: undecided)."""

    def __init__(self, rel_tol: float = 1e-6, precision: int | None = None, abs_tol: float = 0.0,
                 log_base: int | None = None, trailing_units: str = "ignore") -> None:
        self.rel_tol = rel_tol
        self.precision = precision
        self.abs_tol = abs_tol
        self.log_base = log_base
        self.trailing_units = trailing_units

    def warmup(self) -> None:
        """Run one small symbolic check, so every import it needs happens before the first deadline."""
        self("x^2 - 1", "(x-1)(x+1)")

    def __call__(self, gold: str, pred: str) -> bool | None:
        from .equivalence import symbolic_equal

        return symbolic_equal(gold, pred, rel_tol=self.rel_tol, precision=self.precision, abs_tol=self.abs_tol,
                              log_base=self.log_base, trailing_units=self.trailing_units)


#: one ``(value, label)`` object per outcome, returned every time (the core checks an object it has seen once)
_RESULTS: dict[str, tuple[float | None, str]] = {label: (_VALUES.get(label, 0.0), label) for label in OUTCOMES}
_CORRECT, _WRONG = _RESULTS["correct"], _RESULTS["wrong"]


def _labelled(label: str) -> tuple[float | None, str]:
    return _RESULTS[label]


class Accuracy:
    r"""1.0 when the completion's final answer equals the gold answer, else 0.0 (unit: none).

    Exact rule: the answer is extracted from the completion (the last ``\boxed{}``, then
    ``<answer>`` tags, ``#### x``, "the answer is x", the last ``$x$``, then the last number when
    ``fallback_last_number``) and the gold from the ``solution_column`` (a bare answer, a MATH
    solution or a GSM8K solution). The value is 1.0 when they are mathematically equal (numbers
    within ``rel_tol`` relative tolerance, or rounded to ``precision`` decimal places when it is
    set; an integer gold exactly; expressions symbolically, sets unordered, ...), 0.0
    when they differ, no answer is found or the symbolic check overruns the core's deadline, and
    ``None`` when the gold answer cannot be parsed. Each sample is returned with its label.

    Conventions graders disagree on, each a parameter (details: :mod:`grpo_rewards_math.conventions`
    and :mod:`grpo_rewards_math.extract`): ``answer_format`` ``"any"`` (every rule above) or the
    strict ``"boxed"`` / ``"answer_tag"`` (only that form counts, as several GRPO recipes score);
    ``answer_position`` ``"last"`` or ``"first"`` (the first group of joined boxes, the first
    ``<answer>`` tag); ``abs_tol`` (0.0) beside ``rel_tol``; ``trailing_units`` ``"ignore"`` (``12 cm``
    equals the gold ``12``) or ``"match"``; ``log_base`` ``"e"`` (or 10, 2) for a bare ``\log``.

    >>> score = Accuracy()
    >>> score(r"7 + 5 = \boxed{12}", solution="12")
    (1.0, 'correct')
    >>> score("The answer is 13.", solution="12"), score("I don't know", solution="12")
    ((0.0, 'wrong'), (0.0, 'no_answer'))
    >>> score(r"\boxed{12}", solution="not a math answer ][")
    (None, 'gold_unparsable')
    >>> score(r"\boxed{12}", solution=None), score(r"\boxed{12}", solution=""), score(r"\boxed{12}", solution=float("nan"))
    ((None, 'no_gold'), (None, 'no_gold'), (None, 'no_gold'))
    >>> Accuracy(answer_format="boxed")("The answer is 12.", solution="12")
    (0.0, 'no_answer')
    """

    def __init__(
        self,
        solution_column: str = "solution",
        rel_tol: float = 1e-6,
        fallback_last_number: bool = True,
        precision: int | None = None,
        answer_format: str = "any",
        answer_position: str = "last",
        abs_tol: float = 0.0,
        trailing_units: str = "ignore",
        log_base: float | str = "e",
    ) -> None:
        self.solution_column = params.column(solution_column, "solution_column")
        self.abs_tol = params.number(abs_tol, "abs_tol", low=0)
        self.trailing_units = params.choice(trailing_units, "trailing_units", UNITS)
        self.log_base = log_base_value(log_base)
        self.answer_format = params.choice(answer_format, "answer_format", FORMATS)
        self.answer_position = params.choice(answer_position, "answer_position", POSITIONS)
        self.precision = params.integer(precision, "precision", low=0, high=30, none_ok=True)
        self.rel_tol = params.number(rel_tol, "rel_tol", low=0, high=1)
        if self.rel_tol == 1:
            raise ValueError("rel_tol must be below 1 (a relative tolerance of 100% accepts any number)")
        self.fallback_last_number = params.boolean(fallback_last_number, "fallback_last_number")
        self.delimiter: str | None = None
        self._reading = self._read_as()
        #: the symbolic comparison run for the samples the bounded checks leave undecided
        self.checker: Any = SymbolicCheck(self.rel_tol, self.precision, self.abs_tol, self.log_base, self.trailing_units)
        #: the key of the remembered symbolic results: every convention that can change one
        self.conventions = (self.rel_tol, self.precision, self.abs_tol, self.log_base, self.trailing_units)
        self._conventions = conventions_of(*self.conventions)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} rel_tol={self.rel_tol} solution_column={self.solution_column!r}>"

    def warmup(self) -> None:
        """Run one small symbolic check, so every import it needs happens before the first deadline."""
        warm = getattr(self.checker, "warmup", None)
        if callable(warm):
            warm()

    def extract(self, completion: Any) -> str | None:
        """The answer this reward reads from one completion (a ``str`` or a message list)."""
        text = completion_text(completion)
        return None if text is None else self._answer(text)

    def _read_as(self) -> Reading:
        """How this reward reads an answer: its extraction options, worked out once when it is built."""
        return reading(self.fallback_last_number, self.delimiter, _parsable, self.answer_position, self.answer_format)

    def _answer(self, text: str) -> str | None:
        """The answer of a completion's text (remembered for short texts)."""
        if len(text) <= _REMEMBERED_CHARS:
            return _answer_of(text, self._reading)
        return read(text, self._reading)

    def _pair(self, text: str, row: dict[str, Any]) -> tuple[str | None, str, str]:
        """``(label or None, gold, pred)``: a label when the sample is decided without comparing."""
        column = self.solution_column
        if column not in row:
            have = sorted(k for k in row if k not in ("prompt", "completion", "completion_ids"))
            raise ValueError(f"math.accuracy needs the dataset column {column!r} (one gold answer per "
                             f"completion); the row has: {', '.join(have) or 'none'}. To read another column, set "
                             "solution_column (with: {solution_column: NAME} in a reward set)")
        solution = row[column]
        if solution is None or (isinstance(solution, str) and not solution.strip()) or (
                isinstance(solution, float) and math.isnan(solution)):  # (NaN: a float column's missing cell)
            return "no_gold", "", ""
        try:
            gold = _gold_of(solution)
        except TypeError:  # an unhashable dataset value (a list): read it every time
            gold = _gold_of.__wrapped__(solution)
        if gold is None:
            return "gold_unparsable", "", ""
        pred = self._answer(text)
        if pred is None and self.answer_format == "any":
            pred = self._text_reply(text, gold)
        if pred is None:
            return "no_answer", gold, ""
        if echoes_prompt(pred, row.get("prompt"), gold):
            return "prompt_echo", gold, pred
        return None, gold, pred

    def _text_reply(self, text: str, gold: str) -> str | None:
        """A completion of plain words (``east``) is the answer when the gold is a text answer
        (``\\text{east}``); against any other gold it stays no answer."""
        delimiter = self._reading.delimiter  # the answer's own reading: one delimiter for both
        after = after_delimiter(text, delimiter) if delimiter else text
        words = None if after is None else plain_words(after)
        return words if words is not None and _text_gold(gold) else None

    def quick_equal(self, gold: str, pred: str) -> bool | None:
        """The bounded comparison: True/False when decided cheaply, None when only symbolic work can decide."""
        return decide(gold, pred, self._conventions)

    def quick(self, text: str, **row: Any) -> tuple[float | None, str] | None:
        """``(value, label)`` when the bounded checks decide the sample, else ``None`` (run in-process)."""
        label, gold, pred = self._pair(text, row)
        if label is not None:
            return _labelled(label)
        try:
            decided = self.quick_equal(gold, pred)
        except ParseError:
            return _labelled("gold_unparsable")
        except Exception:  # a bug in the quick checks: let the symbolic check decide
            decided = None
        if decided is None:
            cached = _cache_get((gold, pred, self.conventions))
            return None if cached is None else _labelled(cached)
        return _CORRECT if decided else _WRONG

    def explain(self, completion: Any, **row: Any) -> dict[str, Any]:
        r"""What the reward read and decided for one completion: the extracted ``answer``, the
        ``gold`` answer, the ``label`` and the ``value`` (shown by ``grpo-rewards compare``).

        >>> Accuracy().explain(r"so \boxed{5}", solution="The sum is $\boxed{4}$.")
        {'answer': '5', 'gold': '4', 'label': 'wrong', 'value': 0.0}
        """
        text = completion_text(completion)
        value, label = (0.0, "unreadable") if text is None else self(text, **row)
        gold = extract_gold(row[self.solution_column], accept=_parsable) if self.solution_column in row else None
        answer = None if text is None else self.extract(text)
        if answer is None and text is not None and gold is not None and _parsable(gold):
            answer = self._text_reply(text, gold)
        return {"answer": answer, "gold": gold, "label": label, "value": value}

    def __call__(self, text: str, **row: Any) -> tuple[float | None, str]:
        """The sample's ``(value, label)``: the bounded checks, then the symbolic comparison."""
        decided = self.quick(text, **row)
        if decided is not None:
            return decided
        _, gold, pred = self._pair(text, row)
        try:
            decided = self.checker(gold, pred)
            label = "undecided" if decided is None else "correct" if decided else "wrong"
        except Exception:  # a failure of the symbolic check is a 0.0, labelled, never a crash of the step
            return _labelled("error")
        _cache_put((gold, pred, self.conventions), label)
        return _labelled(label)


class ReasoningAccuracy(Accuracy):
    r"""``math.accuracy`` read only after the reasoning ``delimiter``; 0.0 when it is missing.

    Exact rule: as ``math.accuracy`` on the text after the last ``delimiter`` (default
    ``</think>``); a completion without the delimiter scores 0.0 (``no_answer``), so an answer
    inside the reasoning never counts. Unit: none; values 1.0, 0.0 or ``None`` (unparsable gold).

    >>> score = ReasoningAccuracy()
    >>> score(r"<think>so \boxed{4}</think> \boxed{4}", solution="4"), score(r"<think>so \boxed{4}", solution="4")
    ((1.0, 'correct'), (0.0, 'no_answer'))
    """

    def __init__(
        self,
        solution_column: str = "solution",
        delimiter: str = "</think>",
        rel_tol: float = 1e-6,
        fallback_last_number: bool = True,
        precision: int | None = None,
        answer_format: str = "any",
        answer_position: str = "last",
        abs_tol: float = 0.0,
        trailing_units: str = "ignore",
        log_base: float | str = "e",
    ) -> None:
        super().__init__(solution_column=solution_column, rel_tol=rel_tol, fallback_last_number=fallback_last_number,
                         precision=precision, answer_format=answer_format, answer_position=answer_position,
                         abs_tol=abs_tol, trailing_units=trailing_units, log_base=log_base)
        self.delimiter = params.text(delimiter, "delimiter")
        self._reading = self._read_as()
