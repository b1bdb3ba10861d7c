"""``Reward``: a registered scorer lifted into TRL's batch call, with the core's safety policy.

It turns each completion into text, passes each row's columns (checked by :mod:`~grpo_rewards.call_inputs`),
guards input size, runs samples in-process or in worker processes under a hard deadline, validates what comes
back, applies the error policy, reuses results of rewards it depends on, and counts its outcome labels and logs
``outcomes/<metric>/<label>`` and ``timing/<metric>`` through TRL's ``log_metric`` (:mod:`~grpo_rewards.outcomes`).

:meth:`Reward.score` is the one entry point: it returns a :class:`~grpo_rewards.RewardResult`
(values, labels, seconds); ``reward(...)``, TRL's call, returns its values. Two names: a reward's
``name`` is the name it is registered under (``math.accuracy``), its ``metric`` (also its
``__name__``, which TRL logs by) the name of this configured copy in a reward set (``as:``).
"""

from __future__ import annotations

import functools
import inspect
import math
import threading
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from .backends import form_problem
from .call_inputs import misaligned, missing_columns_of, per_sample_columns, without_argument_names
from .errors import RewardError
from .execution import map_with_deadline
from .execution.calls import (
    BatchCall,
    batch_result_problem,
    checked_batch,
    run_samples,
    start_workers,
    travelling_state,
)
from .options import RewardOptions
from .outcomes import Tally
from .protocol import (
    OPTIONS_KEYWORD,
    ROW_FIELDS,
    TRL_CONTROL_KWARGS,
    RewardResult,
    batch_columns,
    completion_text,
)
from .records import column_params
from .results import ResultCache
from .scorer_hooks import quick
from .signatures import Param, argument_names, keyword_params, scorer_params, takes_options
from .values import check_value, is_checked_label, split_label

__all__ = ["ResultCache", "Reward", "batch_result_problem", "build_scorer"]

_NOT_ACCEPTED: Any = object()  # never a scorer's value


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
    runs. ``declared``: the reward's parameters (default: read from the scorer's signature). ``registered``: the
    name a plugin registered it under, which the missing-column message names for ``grpo-rewards show`` (the
    builder sets it; None for a reward made here). Picklable when the scorer is.

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
        registered: str | None = None,
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
        #: the name a plugin registered it under (``grpo-rewards show`` describes it), for the same message
        self.registered = registered
        #: parameter names a dataset column of the same name must not override (TRL's own arguments, such as
        #: ``environments``, reach a batch scorer that declares them as keywords)
        self.param_names = (keyword_params(scorer) - TRL_CONTROL_KWARGS) | frozenset(params)
        #: whether each call passes :attr:`options` to the batch scorer (its call declares ``reward_options``)
        self.passes_options = form == "batch" and takes_options(self.scorer)
        if self.passes_options:  # never a dataset column of that name
            self.param_names |= {OPTIONS_KEYWORD}
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

    def _score(self, prompts: Sequence[Any] | None, completions: Sequence[Any] | None, completion_ids: Any,
               kwargs: dict[str, Any], result: bool = True) -> Any:
        """A :class:`RewardResult` (``result``), else a new list of the values (TRL's call): from the set's
        cache when another reward reads this one (computed once per batch), else computed."""
        if completions is None:
            raise RewardError(self.__name__, "called without completions")
        prompts, completions, kwargs = batch_columns(prompts, completions, kwargs)
        cache = self.cache
        if not cache.has_readers:  # only then is a result kept for another reward (and looked up here)
            return self._compute(prompts, completions, completion_ids, kwargs, result)
        record = cache.get(self.__name__, completions)
        if record is None:
            with cache.computing(self.__name__, completions):  # a concurrent caller waits, and then finds it
                record = cache.get(self.__name__, completions)
                if record is None:
                    record = self._compute(prompts, completions, completion_ids, kwargs, True)
                    cache.put(self.__name__, completions, record)
        return record if result else list(record.values)  # (the kept record's list stays its own)

    def _compute(self, prompts: Sequence[Any] | None, completions: Sequence[Any], completion_ids: Any,
                 kwargs: dict[str, Any], result: bool) -> Any:
        # One flat function for the per-sample form, loops without comprehensions, helpers only on rare
        # paths: this runs once per call in the caller's thread, usually right after other work (a
        # training step, another grader) has evicted the caches, where its time follows how much
        # distinct code it runs (bench/peers/footprint.py, bench/bench_cold.py). ``result``: a
        # RewardResult (``score``), else the values (TRL's call).
        n = len(completions)
        if prompts is None:
            prompts = [None] * n
        elif len(prompts) != n:
            misaligned(self.__name__, "prompts", prompts, n)
        if completion_ids is not None and len(completion_ids) != n:
            misaligned(self.__name__, "completion_ids", completion_ids, n)
        if self.inputs:
            for input_column, dependency in self.inputs.items():  # timed (and logged) by the dependency itself
                kwargs[input_column] = list(dependency.score(prompts, completions, completion_ids, **kwargs).values)
        if not self.argument_names.isdisjoint(kwargs):
            kwargs = without_argument_names(self, kwargs)
        started = time.perf_counter()
        metrics: dict[str, float] = {}
        if self.form == "batch":
            values, labels, metrics = self._call_batch(prompts, completions, completion_ids, kwargs)
        else:
            columns = per_sample_columns(self.__name__, kwargs, self.not_columns, n)
            for wanted_column in self.columns:
                if wanted_column not in columns:
                    missing_columns_of(self, columns, kwargs, n)
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
        outcomes.add(seconds, labels)  # (it counts the labels now: the record's list is the caller's to change)
        log_metric = kwargs.get("log_metric")
        log_extra = kwargs.get("log_extra")
        if log_metric is not None or log_extra is not None:
            outcomes.log(self.__name__, seconds, labels, metrics, log_metric, log_extra)
        return RewardResult(values, labels, seconds, metrics) if result else values

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
        per_sample_columns(self.__name__, kwargs, self.not_columns, n)  # (the check; a batch scorer reads kwargs)
        kwargs = {k: v for k, v in kwargs.items() if k not in self.param_names}  # parameters win over columns
        if self.passes_options:  # (in a worker too: it travels with the columns)
            kwargs[OPTIONS_KEYWORD] = self.options
        timeout = self.options.timeout
        if timeout is not None:
            columns = {k: v for k, v in kwargs.items() if k not in TRL_CONTROL_KWARGS}
            if "trainer_state" in kwargs:  # a curriculum reads the step in a worker too (TRL's log functions stay)
                columns["trainer_state"] = travelling_state(kwargs["trainer_state"])
            item = (list(prompts), list(completions), completion_ids, columns)
            outcome = map_with_deadline(BatchCall(self.scorer), [item], timeout=timeout,
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
        return checked_batch(self.__name__, raw, n)

    def _in_workers(self, todo: list[tuple[int, str, dict[str, Any]]], values: list[float | None],
                    labels: list[str]) -> None:
        """Score the samples ``todo`` (index, text, row) in worker processes under the deadline (into
        ``values`` and ``labels``)."""
        outcomes = run_samples(self.scorer, [(text, row) for _, text, row in todo], self.options, self.pool_owner)
        for (i, _, _), outcome in zip(todo, outcomes):
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
        return start_workers(self.scorer, self.options, self.pool_owner)

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
