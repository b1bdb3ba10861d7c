"""The math rewards: ``math.accuracy`` and ``math.reasoning_accuracy``.

A batch is scored in two passes. First, in the calling process, every sample's answer is
extracted and compared with the bounded checks (``quick_equal``: normalised text, exact
rationals, numbers within ``rel_tol``); most samples are decided there in well under a
millisecond. The samples those checks cannot decide go together to worker processes for the
symbolic comparison, each under a hard deadline (``timeout`` seconds; a worker that overruns is
killed and the sample scores 0.0, labelled ``timeout``). Nothing in a completion or a gold answer
is ever evaluated: the parser builds sympy objects itself.

Every sample gets an outcome label (:data:`OUTCOMES`); the counts of each batch are reported
through TRL's ``log_metric`` as ``outcomes/<name>/<label>`` and added to the instance's
``outcome_counts``.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from collections.abc import Sequence
from typing import Any

from grpo_rewards import Reward, completion_text, map_with_deadline

from .extract import extract_answer, extract_gold

#: Outcome labels, one per sample: 1.0 for ``correct``; 0.0 for ``wrong``, ``no_answer``
#: (nothing to extract, or no reasoning delimiter), ``timeout`` (the symbolic check overran its
#: deadline) and ``error`` (the symbolic check failed in its worker); ``None`` for
#: ``gold_unparsable`` (the sample is left out, never a free 1.0).
OUTCOMES = ("correct", "wrong", "no_answer", "gold_unparsable", "timeout", "error")

_CACHE_SIZE = 50_000
_symbolic_cache: OrderedDict[tuple[str, str, float], tuple[str, float]] = OrderedDict()
_cache_lock = threading.Lock()


def _cache_get(key: tuple[str, str, float]) -> tuple[str, float] | None:
    """The remembered (label, deadline) of a symbolic check of (gold, pred, rel_tol)."""
    with _cache_lock:
        label = _symbolic_cache.get(key)
        if label is not None:
            _symbolic_cache.move_to_end(key)
        return label


def _cache_put(key: tuple[str, str, float], label: tuple[str, float]) -> None:
    with _cache_lock:
        _symbolic_cache[key] = label
        while len(_symbolic_cache) > _CACHE_SIZE:
            _symbolic_cache.popitem(last=False)


def clear_cache() -> None:
    """Forget the remembered results of symbolic checks (``(gold, pred, rel_tol) -> label``)."""
    with _cache_lock:
        _symbolic_cache.clear()


class SymbolicCheck:
    """Picklable ``(gold, pred) -> bool`` run in worker processes: ``symbolic_equal``."""

    def __init__(self, rel_tol: float = 1e-6) -> None:
        self.rel_tol = rel_tol

    def warmup(self) -> None:
        """Run one small symbolic check, so every import it needs happens before the first deadline."""
        from .equivalence import symbolic_equal

        symbolic_equal("x^2 - 1", "(x-1)(x+1)", rel_tol=self.rel_tol)

    def __call__(self, gold: str, pred: str) -> bool:
        from .equivalence import symbolic_equal

        return bool(symbolic_equal(gold, pred, rel_tol=self.rel_tol))


def _parsable(answer: str) -> bool:
    """Whether the parser can read ``answer`` (bounded; parse errors and parser bugs both say no)."""
    from .parse import ParseError, parse_answer

    try:
        parse_answer(answer)
    except ParseError:
        return False
    except Exception:  # a parser bug on a dataset answer: leave the sample out, never guess
        return False
    return True


class Accuracy:
    r"""1.0 when the completion's final answer equals the gold answer, else 0.0 (unit: none).

    Exact rule: the answer is extracted from the completion (the last ``\boxed{}``, then
    ``<answer>`` tags, ``#### x``, "the answer is x", the last ``$x$``, then the last number when
    ``fallback_last_number``) and the gold from the ``solution_column`` (a bare answer, a MATH
    solution or a GSM8K solution). The value is 1.0 when they are mathematically equal (numbers
    within ``rel_tol`` relative tolerance, expressions symbolically, sets unordered, ...), 0.0
    when they differ, no answer is found or the symbolic check exceeds ``timeout`` seconds, and
    ``None`` when the gold answer cannot be parsed.

    >>> reward = Accuracy()
    >>> reward(prompts=["What is 7 + 5?"] * 4,
    ...        completions=[r"7 + 5 = \boxed{12}", [{"role": "assistant", "content": "The answer is 13."}],
    ...                     "I don't know", r"\boxed{12}"],
    ...        solution=["12", "12", "12", "not a math answer ]["])
    [1.0, 0.0, 0.0, None]
    >>> sorted(reward.outcome_counts.items())
    [('correct', 1), ('gold_unparsable', 1), ('no_answer', 1), ('wrong', 1)]
    """

    #: the metric prefix (``outcomes/<metric_name>/<label>``); the core's ``Reward`` sets it to the
    #: metric name it is logged under (a reward-set entry's ``as:``, or ``make_accuracy(name=...)``).
    metric_name = "math.accuracy"

    def __init__(
        self,
        solution_column: str = "solution",
        rel_tol: float = 1e-6,
        timeout: float = 1.0,
        fallback_last_number: bool = True,
        workers: int | None = None,
    ) -> None:
        if not isinstance(solution_column, str) or not solution_column:
            raise ValueError(f"solution_column must be a column name, not {solution_column!r}")
        if isinstance(rel_tol, bool) or not isinstance(rel_tol, (int, float)) or not 0 <= rel_tol < 1:
            raise ValueError(f"rel_tol must be a number in [0, 1), not {rel_tol!r}")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
            raise ValueError(f"workers must be a positive integer or None, not {workers!r}")
        self.solution_column = solution_column
        self.rel_tol = float(rel_tol)
        self.timeout = float(timeout)
        self.fallback_last_number = bool(fallback_last_number)
        self.workers = workers
        self.delimiter: str | None = None
        #: the picklable ``(gold, pred) -> bool`` run in workers for undecided samples
        self.checker: Any = SymbolicCheck(self.rel_tol)
        self.outcome_counts: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_lock"]
        state["outcome_counts"] = Counter()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.metric_name} rel_tol={self.rel_tol} timeout={self.timeout}>"

    # -- one batch ---------------------------------------------------------------------------
    def extract(self, completion: Any) -> str | None:
        """The answer this reward reads from one completion (a ``str`` or a message list)."""
        text = completion_text(completion)
        if text is None:
            return None
        return extract_answer(text, fallback_last_number=self.fallback_last_number, delimiter=self.delimiter,
                              accept=_parsable)

    def __call__(
        self,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        completion_ids: Sequence[Sequence[int]] | None = None,
        **kwargs: Any,
    ) -> list[float | None]:
        labels, answers = self.label(completions or [], kwargs)
        values = [1.0 if lab == "correct" else None if lab == "gold_unparsable" else 0.0 for lab in labels]
        counts = Counter(labels)
        with self._lock:
            self.outcome_counts.update(counts)
        log_metric = kwargs.get("log_metric")
        if callable(log_metric):
            for label in OUTCOMES:
                log_metric(f"outcomes/{self.metric_name}/{label}", float(counts.get(label, 0)))
        log_extra = kwargs.get("log_extra")
        if callable(log_extra):
            log_extra(f"{self.metric_name}/answer", ["" if a is None else a[:200] for a in answers])
            log_extra(f"{self.metric_name}/outcome", labels)
        return values

    def label(self, completions: Sequence[Any], columns: dict[str, Any]) -> tuple[list[str], list[str | None]]:
        """The outcome label (one of :data:`OUTCOMES`) and the extracted answer of every sample."""
        from .equivalence import quick_equal
        from .parse import ParseError

        n = len(completions)
        golds_raw = columns.get(self.solution_column)
        if golds_raw is None or isinstance(golds_raw, (str, bytes)) or len(golds_raw) != n:
            have = sorted(k for k, v in columns.items() if isinstance(v, (list, tuple)) and len(v) == n)
            raise ValueError(
                f"{self.metric_name} needs the dataset column {self.solution_column!r} (one gold answer per completion); "
                f"the batch has: {', '.join(have) or 'none'}"
            )
        labels: list[str] = [""] * n
        answers: list[str | None] = [None] * n
        gold_ok: dict[str, bool] = {}
        pending: dict[tuple[str, str], list[int]] = {}
        for i in range(n):
            gold = extract_gold(golds_raw[i])
            if gold is not None and gold not in gold_ok:
                gold_ok[gold] = _parsable(gold)
            if gold is None or not gold_ok[gold]:
                labels[i] = "gold_unparsable"
                continue
            answers[i] = pred = self.extract(completions[i])
            if pred is None:
                labels[i] = "no_answer"
                continue
            try:
                decided = quick_equal(gold, pred, rel_tol=self.rel_tol)
            except ParseError:
                labels[i] = "gold_unparsable"
                continue
            except Exception:  # a bug in the quick checks: let the symbolic check decide
                decided = None
            if decided is not None:
                labels[i] = "correct" if decided else "wrong"
                continue
            cached = _cache_get((gold, pred, self.rel_tol))
            if cached is not None and (cached[0] != "timeout" or cached[1] >= self.timeout):
                labels[i] = cached[0]
            else:
                pending.setdefault((gold, pred), []).append(i)
        if pending:
            keys = list(pending)
            outcomes = map_with_deadline(self.checker, keys, timeout=self.timeout, workers=self.workers)
            for key, outcome in zip(keys, outcomes):
                if outcome.status == "ok":
                    label = "correct" if outcome.value else "wrong"
                elif outcome.status == "timeout":
                    label = "timeout"
                else:
                    label = "error"
                if label != "error":  # a timeout is remembered with its deadline: a longer one retries
                    _cache_put((key[0], key[1], self.rel_tol), (label, self.timeout))
                for i in pending[key]:
                    labels[i] = label
        return labels, answers


class ReasoningAccuracy(Accuracy):
    r"""``math.accuracy`` read only after the reasoning ``delimiter``; 0.0 when it is missing.

    Exact rule: as ``math.accuracy`` on the text after the last ``delimiter`` (default
    ``</think>``); a completion without the delimiter scores 0.0 (``no_answer``), so an answer
    inside the reasoning never counts. Unit: none; values 1.0, 0.0 or ``None`` (unparsable gold).

    >>> reward = ReasoningAccuracy()
    >>> reward(completions=[r"<think>so \boxed{4}</think> \boxed{4}", r"<think>so \boxed{4}"], solution=["4", "4"])
    [1.0, 0.0]
    """

    metric_name = "math.reasoning_accuracy"

    def __init__(
        self,
        solution_column: str = "solution",
        delimiter: str = "</think>",
        rel_tol: float = 1e-6,
        timeout: float = 1.0,
        fallback_last_number: bool = True,
        workers: int | None = None,
    ) -> None:
        super().__init__(solution_column=solution_column, rel_tol=rel_tol, timeout=timeout,
                         fallback_last_number=fallback_last_number, workers=workers)
        if not isinstance(delimiter, str) or not delimiter:
            raise ValueError(f"delimiter must be a non-empty string, not {delimiter!r}")
        self.delimiter = delimiter


def _make(cls: type[Accuracy], name: str, params: dict[str, Any]) -> Reward:
    return Reward(cls, name=name, form="batch", params=params, reward_name=cls.metric_name)


def make_accuracy(name: str = "math.accuracy", **params: Any) -> Reward:
    r"""A ``math.accuracy`` reward with parameters, ready for ``GRPOTrainer(reward_funcs=[...])``.

    ``name`` is the metric name TRL logs it under; give each differently configured copy its own.

    >>> reward = make_accuracy(name="math_accuracy_strict", fallback_last_number=False)
    >>> reward(prompts=["2+2?"], completions=["It is 4"], solution=["4"])
    [0.0]
    >>> reward.__name__
    'math_accuracy_strict'
    """
    return _make(Accuracy, name, params)


def make_reasoning_accuracy(name: str = "math.reasoning_accuracy", **params: Any) -> Reward:
    """A ``math.reasoning_accuracy`` reward with parameters (see :func:`make_accuracy`)."""
    return _make(ReasoningAccuracy, name, params)


#: ``GRPOTrainer(reward_funcs=[grpo_rewards_math.accuracy])`` or ``--reward_funcs grpo_rewards_math.accuracy``.
accuracy = make_accuracy()
#: The same after the ``</think>`` reasoning delimiter.
reasoning_accuracy = make_reasoning_accuracy()
