"""``Reward``: a registered scorer lifted into TRL's batch call, with the core's safety policy.

It turns each completion into text, passes each row's columns, guards input size, runs samples
in-process or in worker processes under a hard deadline, validates what comes back, applies the
error policy, reuses results of rewards it depends on, and counts its outcome labels and logs
``outcomes/<metric>/<label>`` and ``timing/<metric>`` through TRL's ``log_metric`` (with a
:class:`~grpo_rewards.outcomes.Tally`, the one place that counts labels).

:meth:`Reward.score` is the one entry point: it returns a :class:`~grpo_rewards.RewardResult`
(values, labels, seconds); ``reward(...)``, TRL's call, returns its values. Two names: a reward's
``name`` is the name it is registered under (``math.accuracy``), its ``metric`` (also its
``__name__``, which TRL logs by) the name of this configured copy in a reward set (``as:``).
"""

from __future__ import annotations

import functools
import inspect
import math
import pickle
import threading
import time
import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload

from .backends import form_problem
from .errors import RewardError, missing_columns
from .execution import default_workers, map_with_deadline, run_items
from .options import RewardOptions
from .outcomes import Tally
from .protocol import ROW_FIELDS, TRL_CONTROL_KWARGS, RewardResult, completion_text
from .records import RewardInfo, column_params
from .scorer_hooks import quick, warm_up
from .signatures import Param, argument_names, keyword_params, scorer_params
from .values import check_label, check_value, is_checked_label, split_label

__all__ = ["ResultCache", "Reward", "build_scorer", "make_reward"]

_SEQUENCES = (list, tuple)  # what a per-sample column is
_NOT_ACCEPTED: Any = object()  # never a scorer's value


class ResultCache:
    """Results of the last batch per metric name, so a reward computed once is reused by others.

    A batch is recognised by the identity of its ``completions`` list (TRL passes the same list
    to every reward of a step); the cache keeps that list alive, so its id cannot be reused.
    """

    def __init__(self) -> None:
        self._entries: dict[str, tuple[Any, list[int], RewardResult]] = {}
        self._lock = threading.Lock()
        self._computing: dict[tuple[str, int], list[Any]] = {}  # (name, id(batch)) -> [lock, users]
        #: whether a reward reads another's result through ``inputs`` (only then may two callers compute
        #: one batch at once for each other: see :meth:`computing`)
        self.has_readers = False

    def computing(self, name: str, completions: Sequence[Any]) -> _Computing:
        """Held while ``name`` computes the batch ``completions`` (a context manager): a reward run
        concurrently with one that reads it through ``inputs`` computes once, and the other waits for
        its result (another batch, or a call that hangs on another batch, never waits)."""
        return _Computing(self, (name, id(completions)))  # the batch is alive while computed: its id is its own

    def get(self, metric: str, completions: Sequence[Any]) -> RewardResult | None:
        entry = self._entries.get(metric)  # one dict read or write is atomic: no lock
        if entry is not None and entry[0] is completions and entry[1] == list(map(id, completions)):
            return entry[2]
        return None

    def put(self, metric: str, completions: Sequence[Any], result: RewardResult) -> None:
        self._entries[metric] = (completions, list(map(id, completions)), result)

    def __getstate__(self) -> dict[str, Any]:
        return {"has_readers": self.has_readers}  # results and locks stay in this process

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]
        self.has_readers = bool(state.get("has_readers"))


class _Computing:
    """``ResultCache.computing``'s context: a per-(reward, batch) lock, dropped when its last user leaves
    (a plain class: a generator-based context manager costs more than the rest of a one-sample call)."""

    __slots__ = ("cache", "entry", "key")

    def __init__(self, cache: ResultCache, key: tuple[str, int]) -> None:
        self.cache, self.key = cache, key
        self.entry: list[Any] = []

    def __enter__(self) -> None:
        cache = self.cache
        with cache._lock:
            entry = cache._computing.get(self.key)
            if entry is None:
                entry = cache._computing[self.key] = [threading.RLock(), 0]
            entry[1] += 1
        self.entry = entry
        try:
            entry[0].acquire()
        except BaseException:
            self._leave()
            raise

    def __exit__(self, *exc: object) -> None:
        self.entry[0].release()
        self._leave()

    def _leave(self) -> None:
        cache, entry = self.cache, self.entry
        with cache._lock:
            entry[1] -= 1
            if not entry[1]:
                del cache._computing[self.key]


class _SampleCall:
    """Picklable ``(text, row) -> value`` sent to workers."""

    def __init__(self, scorer: Any) -> None:
        self.scorer = scorer

    def __call__(self, text: str, row: dict[str, Any]) -> Any:
        return self.scorer(text, **row)

    def warmup(self) -> None:
        warm_up(self.scorer)


class _Warmup:
    """Picklable no-op sent to workers: loading it starts them and warms the scorer up (imports)."""

    def __init__(self, scorer: Any) -> None:
        self.scorer = scorer

    warmup = _SampleCall.warmup

    def __call__(self) -> None:
        return None


class _BatchCall:
    """Picklable ``(prompts, completions, completion_ids, columns) -> result`` sent to a worker."""

    def __init__(self, scorer: Any) -> None:
        self.scorer = scorer

    warmup = _SampleCall.warmup

    def __call__(self, prompts: Any, completions: Any, completion_ids: Any = None,
                 columns: dict[str, Any] | None = None) -> Any:
        result = self.scorer(prompts=prompts, completions=completions, completion_ids=completion_ids,
                             **(columns or {}))
        problem = batch_result_problem(result)
        if problem is not None:  # said by the parent, as in-process: a generator cannot travel back anyway
            return _Refused(problem)
        return result if isinstance(result, RewardResult) else list(result)


@dataclass(frozen=True)
class _Refused:
    """What a worker sends back instead of a batch result that is not a list (its problem, in words)."""

    problem: str


def batch_result_problem(raw: Any) -> str | None:
    """Why a batch reward's return value is not a result (``None`` when it is one): the one rule for
    both paths, in-process and in a worker.

    A result is a :class:`~grpo_rewards.RewardResult` or a sequence with a length (a list, a tuple,
    an array); a mapping (``{0: 1.0}``: its keys would be read as the values), a string, a
    generator or any other one-pass iterator is refused.

    >>> batch_result_problem([1.0, 0.0]) is None, batch_result_problem({0: 1.0})
    (True, 'returned dict, expected a list of floats (one per completion)')
    >>> batch_result_problem(v for v in [1.0])
    'returned generator, expected a list of floats (one per completion)'
    """
    if isinstance(raw, _Refused):
        return raw.problem
    if isinstance(raw, RewardResult):
        raw = raw.values
    if raw is None or isinstance(raw, (str, bytes, Mapping)) or not hasattr(raw, "__len__") \
            or not hasattr(raw, "__getitem__"):
        return f"returned {type(raw).__name__}, expected a list of floats (one per completion)"
    return None


def build_scorer(scorer: Any, params: dict[str, Any] | None) -> Any:
    """The callable a reward runs: a class built with ``params``, a function with them bound."""
    if inspect.isclass(scorer):
        return scorer(**(params or {}))
    return functools.partial(scorer, **params) if params else scorer


class Reward:
    """A reward as TRL calls it: ``reward(prompts, completions, completion_ids=None, **columns)``.

    Build one from a per-sample scorer (``form="sample"``: ``score(text, **row) -> float | None``,
    or ``(value, "label")``) or wrap a batch function (``form="batch"``, returning a list or a
    :class:`~grpo_rewards.RewardResult`). ``metric`` is the name TRL logs it under (its
    ``__name__``); ``name`` the registered name it is a copy of (default: ``metric``).
    ``options`` (a :class:`~grpo_rewards.RewardOptions`, or its fields as keywords) says how it
    runs. ``declared``: the reward's parameters (default: read from the scorer's signature). Picklable
    when the scorer is.

    >>> def shout(text, **row):
    ...     return (1.0, "upper") if text.isupper() else (0.0, "lower")
    >>> reward = Reward(shout, metric="shout")
    >>> result = reward.score(prompts=["Say hi", "Say hi"], completions=["HI", [{"role": "assistant", "content": "hi"}]])
    >>> result.values, result.labels
    ([1.0, 0.0], ['upper', 'lower'])
    >>> reward(prompts=["Say hi"], completions=["HI"]), reward.__name__, sorted(reward.stats.items())
    ([1.0], 'shout', [('lower', 1), ('upper', 2)])
    """

    def __init__(
        self,
        scorer: Any,
        *,
        metric: str,
        name: str | None = None,
        form: str = "sample",
        params: dict[str, Any] | None = None,
        columns: Sequence[str] = (),
        options: RewardOptions | None = None,
        inputs: dict[str, Reward] | None = None,
        cache: ResultCache | None = None,
        units: str = "none",
        built: Any = None,
        declared: Mapping[str, Param] | None = None,
        **option_values: Any,
    ) -> None:
        if form not in ("sample", "batch"):
            raise ValueError(f"form must be 'sample' or 'batch', not {form!r}")
        self.options = (options or RewardOptions()).merged(option_values)
        problem = form_problem(form, self.options.execution, metric)
        if problem:
            raise ValueError(problem)
        params = dict(params or {})
        self.__name__ = metric
        self.name = name or metric
        self.form = form
        self.params = params
        self.columns = tuple(columns)
        self.units = units
        self.inputs = dict(inputs or {})
        self.cache = cache if cache is not None else ResultCache()
        for dependency in self.inputs.values():
            dependency.cache.has_readers = True
        #: the callable that scores: ``scorer`` built with ``params`` (given as ``built`` when that is done)
        self.scorer = built if built is not None else build_scorer(scorer, params)
        if declared is None:  # as a registry entry reads them (RewardInfo.params)
            declared = scorer_params(scorer)[0] if callable(scorer) and (
                form == "sample" or inspect.isclass(scorer)) else {}
        #: column -> the ``*_column`` parameter that names it, for the missing-column message
        self.column_params = column_params(declared, params, self.scorer)
        #: parameter names a dataset column of the same name must not override (TRL's own arguments, such as
        #: ``environments``, reach a batch scorer that declares them as keywords)
        self.param_names = (keyword_params(scorer) - TRL_CONTROL_KWARGS) | frozenset(params)
        #: keyword arguments of a call that are never a per-sample column (TRL's own, the parameters, and
        #: the row's own fields: a keyword so named never overrides them; TRL passes none of those three)
        self.not_columns = TRL_CONTROL_KWARGS | self.param_names | ROW_FIELDS
        #: the scorer's own argument names (its text, ``self``): a column so named is left out, with a warning
        self.argument_names = argument_names(self.scorer, form)
        self._warned_columns: set[str] = set()
        #: the labels and seconds of every call, counted (:attr:`stats`, :attr:`seconds`) and logged
        self.outcomes = Tally()
        self._plan: tuple[RewardOptions, Any, int | None, bool, Any] | None = None
        #: ``id -> (value, label)`` of result objects the scorer returned and the checks accepted, kept
        #: alive (so an id is never reused): a scorer that returns the same immutable pairs is checked once
        self._accepted: dict[int, tuple[float | None, str]] = {}

    @property
    def stats(self) -> Counter[str]:
        """Every outcome label counted so far (``ok``/``none`` for unlabelled values)."""
        return self.outcomes.counts

    @property
    def seconds(self) -> float:
        """Seconds spent scoring so far, over all calls."""
        return self.outcomes.seconds

    @property
    def labels_seen(self) -> set[str]:
        """Every label counted so far (``ok``/``none`` too); each is logged from the call it first occurs on."""
        return self.outcomes.seen

    @property
    def metric(self) -> str:
        """The metric name (``__name__``): what TRL logs this reward under."""
        return self.__name__

    def __repr__(self) -> str:
        return f"<Reward {self.__name__} ({self.name}) params={self.params}>"

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["outcomes"] = self.outcomes.copy()  # a copy (pickled or copy.copy) counts afresh
        state["_plan"] = None
        state["_accepted"] = {}  # ids belong to this process
        return state

    # -- the call ----------------------------------------------------------------------------
    def __call__(
        self,
        /,  # a dataset column named "self" arrives in ``kwargs``
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        completion_ids: Sequence[Sequence[int]] | None = None,
        **kwargs: Any,
    ) -> list[float | None]:
        """TRL's call: the values of :meth:`score`."""
        return self._score(prompts, completions, completion_ids, kwargs, False)

    def score(
        self,
        /,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        completion_ids: Sequence[Sequence[int]] | None = None,
        **kwargs: Any,
    ) -> RewardResult:
        """Score one batch: a value and an outcome label per completion, the seconds it took, and the
        ``metrics`` a batch-form reward reported about the call.

        Counts the labels (:attr:`stats`) and logs ``timing/<metric>``, ``<key>/<metric>`` for each
        of those metrics and ``outcomes/<metric>/<label>`` through TRL's ``log_metric`` when it is given.
        """
        return self._score(prompts, completions, completion_ids, kwargs)

    @overload
    def _score(self, prompts: Sequence[Any] | None, completions: Sequence[Any] | None, completion_ids: Any,
               kwargs: dict[str, Any], result: Literal[True] = ..., locked: bool = ...) -> RewardResult: ...

    @overload
    def _score(self, prompts: Sequence[Any] | None, completions: Sequence[Any] | None, completion_ids: Any,
               kwargs: dict[str, Any], result: Literal[False], locked: bool = ...) -> list[float | None]: ...

    @overload
    def _score(self, prompts: Sequence[Any] | None, completions: Sequence[Any] | None, completion_ids: Any,
               kwargs: dict[str, Any], result: bool, locked: bool = ...) -> RewardResult | list[float | None]: ...

    def _score(self, prompts: Sequence[Any] | None, completions: Sequence[Any] | None, completion_ids: Any,
               kwargs: dict[str, Any], result: bool = True, locked: bool = False) -> Any:
        # One flat function for the per-sample form, loops without comprehensions, helpers only on rare
        # paths: this runs once per call in the caller's thread, usually right after other work (a
        # training step, another grader) has evicted the caches, where its time follows how much
        # distinct code it runs (bench/peers/footprint.py, bench/bench_cold.py). ``result``: a
        # RewardResult (``score``), else a new list of the values (TRL's call; no record is built
        # unless another reward reads this one).
        if completions is None:
            raise RewardError(self.__name__, "called without completions")
        n = len(completions)
        if prompts is None:
            prompts = [None] * n
        cache = self.cache
        readers = cache.has_readers  # only then is a result kept for another reward (and looked up here)
        if readers:
            cached = cache.get(self.__name__, completions)
            if cached is not None:
                return cached if result else list(cached.values)
            if not locked:  # another reward reads this one: a concurrent caller may wait
                with cache.computing(self.__name__, completions):  # and, once in, finds what it computed meanwhile
                    return self._score(prompts, completions, completion_ids, kwargs, result, True)
        if self.inputs:
            for input_column, dependency in self.inputs.items():  # timed (and logged) by the dependency itself
                kwargs[input_column] = list(dependency.score(prompts, completions, completion_ids, **kwargs).values)
        if not self.argument_names.isdisjoint(kwargs):
            kwargs = self._without_argument_names(kwargs)
        started = time.perf_counter()
        metrics: dict[str, float] = {}
        if self.form == "batch":
            values, labels, metrics = self._call_batch(prompts, completions, completion_ids, kwargs)
        else:
            skip = self.not_columns
            columns: dict[str, Sequence[Any]] = {}  # the per-sample dataset columns, in kwargs order
            for key, column in kwargs.items():
                if key not in skip and isinstance(column, _SEQUENCES) and len(column) == n:
                    columns[key] = column
            for wanted_column in self.columns:
                if wanted_column not in columns:
                    self._missing_columns(columns)
            ids = completion_ids if completion_ids is not None else ()
            n_ids = len(ids)
            options = self.options
            plan = self._plan  # what the options say, read once per options and scorer
            if plan is None or plan[0] is not options or plan[1] is not self.scorer:
                plan = self._plan_for(options)
            _, _, max_chars, in_process, call = plan
            values = [None] * n
            labels = ["none"] * n
            todo: list[tuple[int, str, dict[str, Any]]] = []  # (index, text, row) for the workers: not decided here
            accepted = self._accepted
            for i in range(n):
                completion = completions[i]
                row: dict[str, Any] = {"prompt": prompts[i], "completion": completion,
                                       "completion_ids": ids[i] if i < n_ids else None}
                for key, column in columns.items():
                    row[key] = column[i]
                text = completion if type(completion) is str else completion_text(completion)
                if text is None:
                    values[i], labels[i] = options.invalid_value, "unreadable"
                    continue
                if max_chars is not None and len(text) > max_chars:
                    values[i], labels[i] = options.too_large_value, "too_large"
                    continue
                if call is None:
                    todo.append((i, text, row))
                    continue
                try:
                    value = call(text, **row)
                except Exception as exc:
                    if in_process:
                        (values[i],), (labels[i],) = self._failed(1, "error", f"raised {type(exc).__name__}: {exc}",
                                                                  i, exc)
                    else:  # quick: the worker will meet the same problem and report it
                        todo.append((i, text, row))
                    continue
                if value is None and not in_process:
                    todo.append((i, text, row))
                elif accepted.get(id(value), _NOT_ACCEPTED) is value:  # this very (value, label) object, accepted before
                    values[i], labels[i] = value
                else:
                    values[i], labels[i] = self._accept(value, i)
                    if (type(value) is tuple and len(value) == 2 and values[i] is value[0] and labels[i] is value[1]
                            and len(accepted) < 64):  # accepted as it is (float or None, str): immutable
                        accepted[id(value)] = value
            if todo and not in_process:  # in a worker process, or for a scorer without quick: all of them
                self._in_workers(todo, values, labels)
        seconds = time.perf_counter() - started
        outcomes = self.outcomes  # TRL may call one reward from several threads: a Tally's adds are atomic
        outcomes.add(seconds, labels)  # (it copies the labels: the record's list is the caller's to change)
        if readers or result:
            record = RewardResult(values, labels, seconds, metrics)
            if readers:
                cache.put(self.__name__, completions, record)
        log_metric = kwargs.get("log_metric")
        log_extra = kwargs.get("log_extra")
        if log_metric is not None or log_extra is not None:
            outcomes.log(self.__name__, seconds, labels, metrics, log_metric, log_extra)
        return record if result else list(values) if readers else values  # (the kept record's list stays its own)

    def _plan_for(self, options: RewardOptions) -> tuple[RewardOptions, Any, int | None, bool, Any]:
        """``(options, scorer, max_chars, in_process, call)`` for a per-sample call, remembered while the
        options and the scorer stay: ``call`` scores in this process (the scorer itself when the options
        keep samples here, else its ``quick`` if it has one, else None: all go to the workers)."""
        in_process = options.timeout is None and not options.execution.remote
        found = self.scorer if in_process else quick(self.scorer)
        plan = (options, self.scorer, options.max_chars, in_process, found)
        self._plan = plan
        return plan

    def _failed(self, n: int, status: str, error: str, index: int | None = None,
                cause: BaseException | None = None) -> tuple[list[Any], list[str]]:
        """The values and labels of ``n`` samples whose scoring failed (or the error, under ``raise``)."""
        if status == "timeout":
            return [self.options.timeout_value] * n, ["timeout"] * n
        if status == "memory":  # the sample's cost, like a timeout: never raised
            return [self.options.error_value] * n, ["memory"] * n
        if self.options.on_error == "raise":
            raise RewardError(self.__name__, error, index) from cause
        return [self.options.error_value] * n, ["crashed" if status == "crashed" else "error"] * n

    def _call_batch(self, prompts: Sequence[Any], completions: Sequence[Any], completion_ids: Any,
                    kwargs: dict[str, Any]) -> tuple[list[float | None], list[str], dict[str, float]]:
        n = len(completions)
        kwargs = {k: v for k, v in kwargs.items() if k not in self.param_names}  # parameters win over columns
        timeout = self.options.timeout
        if timeout is not None:
            columns = {k: v for k, v in kwargs.items() if k not in TRL_CONTROL_KWARGS}
            item = (list(prompts), list(completions), completion_ids, columns)
            outcome = map_with_deadline(_BatchCall(self.scorer), [item], timeout=timeout,
                                        workers=self.options.workers, max_memory=self.options.max_memory,
                                        owner=self.pool_owner)[0]
            if outcome.status != "ok":
                message = (f"{outcome.status}: {outcome.error}" if outcome.status != "timeout"
                           else f"the whole call exceeded its {timeout:g} s deadline")
                return (*self._failed(n, outcome.status, message), {})
            raw = outcome.value
        else:
            try:
                raw = self.scorer(prompts=prompts, completions=completions, completion_ids=completion_ids, **kwargs)
            except RewardError:
                raise
            except Exception as exc:
                return (*self._failed(n, "error", f"raised {type(exc).__name__}: {exc}", cause=exc), {})
        labels: list[str] | None = None
        metrics: dict[str, float] = {}
        problem = batch_result_problem(raw)
        if problem is not None:
            raise RewardError(self.__name__, problem)
        if isinstance(raw, RewardResult):
            labels = list(raw.labels)
            metrics = self._checked_metrics(raw.metrics)
            raw = raw.values
        raw = list(raw)
        if len(raw) != n:
            raise RewardError(self.__name__, f"returned {len(raw)} values for {n} completions")
        values = [check_value(self.__name__, v, i) for i, v in enumerate(raw)]
        if labels:
            if len(labels) != n:
                raise RewardError(self.__name__, f"returned {len(labels)} labels for {n} completions")
            for i, label in enumerate(labels):
                check_label(self.__name__, label, i)
        else:
            labels = ["none" if v is None else "ok" for v in values]
        return values, labels, metrics

    def _checked_metrics(self, metrics: Any) -> dict[str, float]:
        """A batch result's ``metrics``: names without a slash, finite numbers (else a ``RewardError``)."""
        checked: dict[str, float] = {}
        for key, number in dict(metrics or {}).items():
            if not isinstance(key, str) or not key or "/" in key:
                raise RewardError(self.__name__, f"metric names must be non-empty strings without '/', got {key!r}")
            if isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number):
                raise RewardError(self.__name__, f"metric {key!r} is {number!r}, expected a finite number")
            checked[key] = float(number)
        return checked

    def _without_argument_names(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """``kwargs`` less the columns named like the scorer's own arguments (warned about once per reward)."""
        if self.argument_names.isdisjoint(kwargs):
            return kwargs
        clash = sorted(set(kwargs) & self.argument_names)
        new = [c for c in clash if c not in self._warned_columns]
        if new:
            self._warned_columns.update(new)
            warnings.warn(f"reward {self.__name__!r}: dataset column(s) {', '.join(map(repr, new))} have the name of "
                          "the scorer's own argument and are not passed to it (rename the column to use it)",
                          UserWarning, stacklevel=3)
        return {k: v for k, v in kwargs.items() if k not in self.argument_names}

    def _missing_columns(self, columns: dict[str, Sequence[Any]]) -> None:
        """Raise the :class:`RewardError` naming the columns this reward needs and the batch lacks."""
        have = sorted(columns)
        missing = [c for c in self.columns if c not in have]
        raise RewardError(self.__name__, missing_columns(missing, have, "the batch", self.column_params))

    def _in_workers(self, todo: list[tuple[int, str, dict[str, Any]]], values: list[float | None],
                    labels: list[str]) -> None:
        """Score the samples ``todo`` (index, text, row) in worker processes under the deadline (into
        ``values`` and ``labels``)."""
        first: dict[bytes, int] = {}  # identical samples (a GRPO group that agrees) go to a worker once
        same: dict[int, int] = {}
        for j, (i, text, row) in enumerate(todo):
            try:
                key = pickle.dumps((text, row), protocol=pickle.HIGHEST_PROTOCOL)
            except Exception:  # the worker call will report what cannot be sent
                key = b"%d" % i
            same[j] = first.setdefault(key, j)
        unique = list(dict.fromkeys(same.values()))
        sent = run_items(_SampleCall(self.scorer), [todo[j][1:] for j in unique], self.options, self.pool_owner)
        by_index = dict(zip(unique, sent))
        for j, (i, _, _) in enumerate(todo):
            outcome = by_index[same[j]]
            if outcome.status == "ok":
                values[i], labels[i] = self._accept(outcome.value, i)
            else:
                (values[i],), (labels[i],) = self._failed(1, outcome.status, f"{outcome.status}: {outcome.error}", i)

    def start_workers(self) -> threading.Thread | None:
        """Start this reward's worker processes in the background (spawned, its code imported, its scorer
        warmed up), so that the first batch does not wait for them; None when it runs in-process.

        Called when a reward set is built for training or scoring. A failure here is not reported:
        the first real batch meets it and reports it.
        """
        timeout, workers = self.options.timeout, self.options.workers
        if timeout is None or self.options.execution.remote:
            return None
        items = [()] * (workers or default_workers())

        def start() -> None:
            try:
                map_with_deadline(_Warmup(self.scorer), items, timeout=timeout, workers=workers, owner=self.pool_owner)
            except Exception:
                pass

        thread = threading.Thread(target=start, name=f"start workers of {self.__name__}", daemon=True)
        thread.start()
        return thread

    @property
    def pool_owner(self) -> str:
        """Whose worker processes this reward's samples run in: its own (its name and metric), never another's."""
        return f"{self.name} as {self.__name__}"

    def _accept(self, value: Any, index: int) -> tuple[float | None, str]:
        if type(value) is tuple and len(value) == 2 and is_checked_label(value[1]):  # the usual (value, label)
            raw = value[0]
            if raw is None or (type(raw) is float and math.isfinite(raw)):
                return raw, value[1]
        try:
            raw, label = split_label(self.__name__, value, index)
            checked = check_value(self.__name__, raw, index)
        except RewardError:
            if self.options.on_error == "raise":
                raise
            return self.options.error_value, "error"
        return checked, label or ("none" if checked is None else "ok")


def make_reward(info: RewardInfo, params: dict[str, Any] | None = None, *, metric: str | None = None,
                options: RewardOptions | dict[str, Any] | None = None, inputs: dict[str, Reward] | None = None,
                cache: ResultCache | None = None, columns: Sequence[str] | None = None,
                built: Any = None) -> Reward:
    """Build a :class:`Reward` from a registry entry: its registered options with ``options`` over
    them, its registered columns unless ``columns`` says which it reads."""
    return Reward(
        info.scorer,
        metric=metric or info.name,
        name=info.name,
        form=info.form,
        params=params,
        columns=info.columns if columns is None else columns,
        units=info.units,
        options=info.options.merged(options),
        inputs=inputs,
        cache=cache,
        built=built,
        declared=info.params,
    )
