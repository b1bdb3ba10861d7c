"""``Reward``: a registered scorer lifted into TRL's batch call, with the core's safety policy.

It turns each completion into text, passes each row's columns, guards input size, runs samples
in-process or in worker processes under a hard deadline, validates what comes back, applies the
error policy, reuses results of rewards it depends on, and is the one place that counts outcome
labels and logs ``outcomes/<metric>/<label>`` and ``timing/<metric>`` through TRL's ``log_metric``.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import math
import pickle
import threading
import time
import warnings
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from .arguments import argument_names, keyword_params
from .backends import form_problem
from .errors import RewardError
from .options import ON_ERROR, RewardOptions
from .protocol import BATCH_OUTCOMES, LOGGED_OUTCOMES, TRL_CONTROL_KWARGS, RewardResult, completion_text
from .values import check_label, check_value, is_checked_label, split_label

__all__ = ["ON_ERROR", "ResultCache", "Reward", "make_reward"]

_STATS_LOCK = threading.Lock()


class ResultCache:
    """Results of the last batch per metric name, so a reward computed once is reused by others.

    A batch is recognised by the identity of its ``completions`` list (TRL passes the same list
    to every reward of a step); the cache keeps that list alive, so its id cannot be reused.
    """

    def __init__(self) -> None:
        self._entries: dict[str, tuple[Any, list[int], list[Any]]] = {}
        self._lock = threading.Lock()
        self._computing: dict[tuple[str, int], list[Any]] = {}  # (name, id(batch)) -> [lock, users]

    @contextlib.contextmanager
    def computing(self, name: str, completions: Sequence[Any]) -> Iterator[None]:
        """Held while ``name`` computes the batch ``completions``: a reward run concurrently with one that
        reads it through ``inputs`` computes once, and the other waits for its result (another batch,
        or a call that hangs on another batch, never waits)."""
        key = (name, id(completions))  # the batch is alive while it is computed: its id is its own
        with self._lock:
            entry = self._computing.setdefault(key, [threading.RLock(), 0])
            entry[1] += 1
        try:
            with entry[0]:
                yield
        finally:
            with self._lock:
                entry[1] -= 1
                if not entry[1]:
                    del self._computing[key]

    def get(self, name: str, completions: Sequence[Any]) -> list[Any] | None:
        with self._lock:
            entry = self._entries.get(name)
        if entry is not None and entry[0] is completions and entry[1] == [id(c) for c in completions]:
            return entry[2]
        return None

    def put(self, name: str, completions: Sequence[Any], values: list[Any]) -> None:
        with self._lock:
            self._entries[name] = (completions, [id(c) for c in completions], values)

    def __getstate__(self) -> dict[str, Any]:
        return {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._entries = {}
        self._lock = threading.Lock()
        self._computing = {}


class _SampleCall:
    """Picklable ``(text, row) -> value`` sent to workers."""

    def __init__(self, scorer: Any) -> None:
        self.scorer = scorer

    def __call__(self, text: str, row: dict[str, Any]) -> Any:
        return self.scorer(text, **row)

    def warmup(self) -> None:
        warm = getattr(self.scorer, "warmup", None)
        if callable(warm):
            warm()


class _BatchCall:
    """Picklable ``(prompts, completions, completion_ids, columns) -> result`` sent to a worker."""

    def __init__(self, scorer: Any) -> None:
        self.scorer = scorer

    warmup = _SampleCall.warmup

    def __call__(self, prompts: Any, completions: Any, completion_ids: Any = None,
                 columns: dict[str, Any] | None = None) -> Any:
        result = self.scorer(prompts=prompts, completions=completions, completion_ids=completion_ids,
                             **(columns or {}))
        return result if isinstance(result, RewardResult) else list(result)


class Reward:
    """A reward as TRL calls it: ``reward(prompts, completions, completion_ids=None, **columns)``.

    Build one from a per-sample scorer (``form="sample"``: ``score(text, **row) -> float | None``,
    or ``(value, "label")``) or wrap a batch function (``form="batch"``, returning a list or a
    :class:`~grpo_rewards.RewardResult`). ``options`` (a :class:`~grpo_rewards.RewardOptions`, or
    its fields as keywords) says how it runs. Picklable when the scorer is.

    >>> def shout(text, **row):
    ...     return (1.0, "upper") if text.isupper() else (0.0, "lower")
    >>> reward = Reward(shout, name="shout")
    >>> reward(prompts=["Say hi", "Say hi"], completions=["HI", [{"role": "assistant", "content": "hi"}]])
    [1.0, 0.0]
    >>> reward.__name__, sorted(reward.stats.items())
    ('shout', [('lower', 1), ('upper', 1)])
    """

    def __init__(
        self,
        scorer: Any,
        *,
        name: str,
        form: str = "sample",
        params: dict[str, Any] | None = None,
        columns: Sequence[str] = (),
        options: RewardOptions | None = None,
        inputs: dict[str, Reward] | None = None,
        cache: ResultCache | None = None,
        reward_name: str | None = None,
        units: str = "none",
        **option_values: Any,
    ) -> None:
        if form not in ("sample", "batch"):
            raise ValueError(f"form must be 'sample' or 'batch', not {form!r}")
        self.options = (options or RewardOptions()).merged(option_values)
        problem = form_problem(form, self.options.execution, name)
        if problem:
            raise ValueError(problem)
        params = dict(params or {})
        impl: Any
        if inspect.isclass(scorer):
            impl = scorer(**params)
        elif params:
            impl = functools.partial(scorer, **params)
        else:
            impl = scorer
        self.__name__ = name
        self.reward_name = reward_name or name
        self.form = form
        self.params = params
        self.columns = tuple(columns)
        self.units = units
        self.inputs = dict(inputs or {})
        self.cache = cache if cache is not None else ResultCache()
        self.impl = impl
        #: parameter names a dataset column of the same name must not override
        self.param_names = keyword_params(scorer) | frozenset(params)
        #: the scorer's own argument names (its text, ``self``): a column so named is left out, with a warning
        self.argument_names = argument_names(impl, form)
        self._warned_columns: set[str] = set()
        #: every outcome label counted so far (``ok``/``none`` for unlabelled values)
        self.stats: Counter[str] = Counter()
        #: the labels this reward has reported; logged (zeros included) on every later call
        self.labels_seen: set[str] = set()
        self.seconds = 0.0

    # the options, read where they used to be attributes
    timeout = property(lambda self: self.options.timeout)
    timeout_value = property(lambda self: self.options.timeout_value)
    on_error = property(lambda self: self.options.on_error)
    error_value = property(lambda self: self.options.error_value)
    workers = property(lambda self: self.options.workers)
    max_chars = property(lambda self: self.options.max_chars)
    too_large_value = property(lambda self: self.options.too_large_value)
    invalid_value = property(lambda self: self.options.invalid_value)
    worker_safe = property(lambda self: self.options.worker_safe)

    def __repr__(self) -> str:
        return f"<Reward {self.__name__} ({self.reward_name}) params={self.params}>"

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["stats"] = Counter()
        state["labels_seen"] = set()
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
        if completions is None:
            raise RewardError(self.__name__, "called without completions")
        n = len(completions)
        if prompts is None:
            prompts = [None] * n
        cached = self.cache.get(self.__name__, completions)
        if cached is not None:
            return list(cached)
        with self.cache.computing(self.__name__, completions):
            cached = self.cache.get(self.__name__, completions)  # computed meanwhile, by a concurrent caller
            if cached is not None:
                return list(cached)
            return self._compute(prompts, completions, completion_ids, kwargs)

    def _compute(self, prompts: Sequence[Any], completions: Sequence[Any], completion_ids: Any,
                 kwargs: dict[str, Any]) -> list[float | None]:
        for column, dependency in self.inputs.items():  # timed (and logged) by the dependency itself
            kwargs[column] = dependency(prompts, completions, completion_ids, **kwargs)
        kwargs = self._without_argument_names(kwargs)
        started = time.perf_counter()
        if self.form == "batch":
            values, labels = self._call_batch(prompts, completions, completion_ids, kwargs)
            logged: Sequence[str] = BATCH_OUTCOMES
        else:
            values, labels = self._call_samples(prompts, completions, completion_ids, kwargs)
            logged = LOGGED_OUTCOMES
        seconds = time.perf_counter() - started
        counts: dict[str, int] = {}
        for label in labels:  # a plain dict: Counter's update checks cost more than the counting here
            counts[label] = counts.get(label, 0) + 1
        with _STATS_LOCK:  # TRL may call one reward from several threads
            self.seconds += seconds
            stats = self.stats
            seen = self.labels_seen
            for label, count in counts.items():
                stats[label] += count
                if label != "ok" and label != "none":
                    seen.add(label)
        self.cache.put(self.__name__, completions, values)
        log_metric = kwargs.get("log_metric")
        if callable(log_metric):
            log_metric(f"timing/{self.__name__}", seconds)
            for label, metric in self._outcome_metrics(logged):
                log_metric(metric, float(counts.get(label, 0)))
        log_extra = kwargs.get("log_extra")
        if callable(log_extra) and not self.labels_seen.issubset(LOGGED_OUTCOMES):  # the reward reports labels
            log_extra(f"{self.__name__}/outcome", list(labels))  # a column of TRL's completions table
        return list(values)

    def _outcome_metrics(self, logged: Sequence[str]) -> tuple[tuple[str, str], ...]:
        """``(label, "outcomes/<name>/<label>")`` of every label logged on a call: ``logged``, then the
        labels seen so far in name order (remembered until the name or the labels seen change)."""
        key = (self.__name__, tuple(logged), frozenset(self.labels_seen))
        remembered = self.__dict__.get("_metric_names")
        if remembered is not None and remembered[0] == key:
            return remembered[1]
        names = tuple((label, f"outcomes/{self.__name__}/{label}")
                      for label in (*logged, *sorted(self.labels_seen - set(logged))))
        self.__dict__["_metric_names"] = (key, names)
        return names

    def _failed(self, n: int, status: str, error: str, index: int | None = None,
                cause: BaseException | None = None) -> tuple[list[Any], list[str]]:
        """The values and labels of ``n`` samples whose scoring failed (or the error, under ``raise``)."""
        if status == "timeout":
            return [self.timeout_value] * n, ["timeout"] * n
        if self.on_error == "raise":
            raise RewardError(self.__name__, error, index) from cause
        return [self.error_value] * n, ["crashed" if status == "crashed" else "error"] * n

    def _call_batch(self, prompts: Sequence[Any], completions: Sequence[Any], completion_ids: Any,
                    kwargs: dict[str, Any]) -> tuple[list[float | None], list[str]]:
        n = len(completions)
        kwargs = {k: v for k, v in kwargs.items() if k not in self.param_names}  # parameters win over columns
        if self.timeout is not None:
            from .execution import map_with_deadline

            columns = {k: v for k, v in kwargs.items() if k not in TRL_CONTROL_KWARGS}
            item = (list(prompts), list(completions), completion_ids, columns)
            outcome = map_with_deadline(_BatchCall(self.impl), [item], timeout=self.timeout, workers=self.workers)[0]
            if outcome.status != "ok":
                message = (f"{outcome.status}: {outcome.error}" if outcome.status != "timeout"
                           else f"the whole call exceeded its {self.timeout:g} s deadline")
                return self._failed(n, outcome.status, message)
            raw = outcome.value
        else:
            try:
                raw = self.impl(prompts=prompts, completions=completions, completion_ids=completion_ids, **kwargs)
            except RewardError:
                raise
            except Exception as exc:
                return self._failed(n, "error", f"raised {type(exc).__name__}: {exc}", cause=exc)
        labels: list[str] | None = None
        if isinstance(raw, RewardResult):
            labels = list(raw.labels)
            raw = raw.values
        if raw is None or isinstance(raw, (str, bytes)) or not hasattr(raw, "__len__"):
            raise RewardError(self.__name__, f"returned {type(raw).__name__}, expected a list of floats")
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
        return values, labels

    def _without_argument_names(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """``kwargs`` less the columns named like the scorer's own arguments (warned about once per reward)."""
        clash = sorted(set(kwargs) & self.argument_names)
        if not clash:
            return kwargs
        new = [c for c in clash if c not in self._warned_columns]
        if new:
            self._warned_columns.update(new)
            warnings.warn(f"reward {self.__name__!r}: dataset column(s) {', '.join(map(repr, new))} have the name of "
                          "the scorer's own argument and are not passed to it (rename the column to use it)",
                          UserWarning, stacklevel=3)
        return {k: v for k, v in kwargs.items() if k not in self.argument_names}

    def _rows(self, prompts: Sequence[Any], completions: Sequence[Any], completion_ids: Any,
              kwargs: dict[str, Any]) -> list[dict[str, Any]]:
        n = len(completions)
        per_sample = {
            k: v for k, v in kwargs.items()
            if k not in TRL_CONTROL_KWARGS and k not in self.param_names and isinstance(v, (list, tuple)) and len(v) == n
        }
        missing = [c for c in self.columns if c not in per_sample]
        if missing:
            have = sorted(per_sample) or ["none"]
            raise RewardError(
                self.__name__,
                f"needs dataset column(s) {', '.join(map(repr, missing))}; the batch has: {', '.join(have)}",
            )
        rows = []
        for i in range(n):
            row = {k: v[i] for k, v in per_sample.items()}
            row["prompt"] = prompts[i]
            row["completion"] = completions[i]
            row["completion_ids"] = completion_ids[i] if completion_ids is not None and i < len(completion_ids) else None
            rows.append(row)
        return rows

    def _call_samples(self, prompts: Sequence[Any], completions: Sequence[Any], completion_ids: Any,
                      kwargs: dict[str, Any]) -> tuple[list[float | None], list[str]]:
        n = len(completions)
        rows = self._rows(prompts, completions, completion_ids, kwargs)
        values: list[float | None] = [None] * n
        labels: list[str] = ["none"] * n
        todo: list[int] = []
        texts: list[str | None] = []
        options = self.options  # read once: the option properties cost a call each
        max_chars = options.max_chars
        for i, completion in enumerate(completions):
            text = completion_text(completion)
            texts.append(text)
            if text is None:
                values[i], labels[i] = options.invalid_value, "unreadable"
            elif max_chars is not None and len(text) > max_chars:
                values[i], labels[i] = options.too_large_value, "too_large"
            else:
                todo.append(i)
        if options.timeout is None and not options.execution.remote:
            for i in todo:
                try:
                    value = self.impl(texts[i], **rows[i])
                except Exception as exc:
                    (values[i],), (labels[i],) = self._failed(1, "error", f"raised {type(exc).__name__}: {exc}", i, exc)
                    continue
                values[i], labels[i] = self._accept(value, i)
            return values, labels
        quick = getattr(self.impl, "quick", None)
        if callable(quick):  # decided in-process when it can be, without a worker round trip
            undecided = []
            for i in todo:
                try:
                    decided = quick(texts[i], **rows[i])
                except Exception:  # the worker will meet the same problem and report it
                    decided = None
                if decided is None:
                    undecided.append(i)
                else:
                    values[i], labels[i] = self._accept(decided, i)
            todo = undecided
        if not todo:  # all decided in-process: no worker pool to look up
            return values, labels
        from .execution import run_items

        first: dict[bytes, int] = {}  # identical samples (a GRPO group that agrees) go to a worker once
        same: dict[int, int] = {}
        for i in todo:
            try:
                key = pickle.dumps((texts[i], rows[i]), protocol=pickle.HIGHEST_PROTOCOL)
            except Exception:  # the worker call will report what cannot be sent
                key = b"%d" % i
            same[i] = first.setdefault(key, i)
        unique = list(dict.fromkeys(same.values()))
        sent = run_items(_SampleCall(self.impl), [(texts[i], rows[i]) for i in unique], options)
        by_index = dict(zip(unique, sent))
        for i in todo:
            outcome = by_index[same[i]]
            if outcome.status == "ok":
                values[i], labels[i] = self._accept(outcome.value, i)
            else:
                (values[i],), (labels[i],) = self._failed(1, outcome.status, f"{outcome.status}: {outcome.error}", i)
        return values, labels

    def _accept(self, value: Any, index: int) -> tuple[float | None, str]:
        if type(value) is tuple and len(value) == 2 and is_checked_label(value[1]):  # the usual (value, label)
            raw = value[0]
            if raw is None or (type(raw) is float and math.isfinite(raw)):
                return raw, value[1]
        try:
            raw, label = split_label(self.__name__, value, index)
            checked = check_value(self.__name__, raw, index)
        except RewardError:
            if self.on_error == "raise":
                raise
            return self.error_value, "error"
        return checked, label or ("none" if checked is None else "ok")


def make_reward(info: Any, params: dict[str, Any] | None = None, *, name: str | None = None,
                options: RewardOptions | dict[str, Any] | None = None, inputs: dict[str, Reward] | None = None,
                cache: ResultCache | None = None) -> Reward:
    """Build a :class:`Reward` from a registry entry: its registered options with ``options`` over them."""
    return Reward(
        info.obj,
        name=name or info.name,
        reward_name=info.name,
        form=info.form,
        params=params,
        columns=info.columns,
        units=info.units,
        options=info.options.merged(options),
        inputs=inputs,
        cache=cache,
    )
