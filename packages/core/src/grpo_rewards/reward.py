"""``Reward``: a registered scorer lifted into TRL's batch call, with the core's safety policy.

It turns each completion into text, passes each row's columns, guards input size, runs samples
in-process or in worker processes under a hard deadline, validates what comes back, applies the
error policy, reuses results of rewards it depends on, and reports timing and outcomes through
TRL's ``log_metric``.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import threading
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from .protocol import LOGGED_OUTCOMES, TRL_CONTROL_KWARGS, RewardError, completion_text

ON_ERROR = ("raise", "none")


class ResultCache:
    """Results of the last batch per metric name, so a reward computed once is reused by others.

    A batch is recognised by the identity of its ``completions`` list (TRL passes the same list
    to every reward of a step); the cache keeps that list alive, so its id cannot be reused.
    """

    def __init__(self) -> None:
        self._entries: dict[str, tuple[Any, list[int], list[Any]]] = {}
        self._lock = threading.Lock()

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
        self.__init__()


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


def _check_value(name: str, value: Any, index: int) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):  # numpy floats are Real
        raise RewardError(name, f"returned {type(value).__name__} {value!r:.60}, expected a float or None", index)
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        raise RewardError(name, f"returned {value}, expected a finite float or None", index)
    return value


class Reward:
    """A reward as TRL calls it: ``reward(prompts, completions, completion_ids=None, **columns)``.

    Build one from a per-sample scorer (``form="sample"``: ``score(text, **row) -> float | None``)
    or wrap a batch function (``form="batch"``). Picklable when the scorer is.

    >>> def shout(text, **row):
    ...     return 1.0 if text.isupper() else 0.0
    >>> reward = Reward(shout, name="shout")
    >>> reward(prompts=["Say hi", "Say hi"], completions=["HI", [{"role": "assistant", "content": "hi"}]])
    [1.0, 0.0]
    >>> reward.__name__
    'shout'
    """

    def __init__(
        self,
        scorer: Any,
        *,
        name: str,
        form: str = "sample",
        params: dict[str, Any] | None = None,
        columns: Sequence[str] = (),
        invalid_value: float | None = None,
        on_error: str = "raise",
        error_value: float | None = None,
        timeout: float | None = None,
        timeout_value: float | None = None,
        workers: int | None = None,
        max_chars: int | None = None,
        too_large_value: float | None = None,
        inputs: dict[str, Reward] | None = None,
        cache: ResultCache | None = None,
        reward_name: str | None = None,
        units: str = "none",
    ) -> None:
        if form not in ("sample", "batch"):
            raise ValueError(f"form must be 'sample' or 'batch', not {form!r}")
        if on_error not in ON_ERROR:
            raise ValueError(f"on_error must be one of {ON_ERROR}, not {on_error!r}")
        if timeout is not None and (timeout <= 0 or form == "batch"):
            raise ValueError("timeout needs a positive number of seconds and a per-sample reward")
        params = dict(params or {})
        if inspect.isclass(scorer):
            impl = scorer(**params)
            if hasattr(impl, "metric_name"):  # lets the instance log its own metrics under our name
                impl.metric_name = name
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
        self.invalid_value = invalid_value
        self.on_error = on_error
        self.error_value = error_value
        self.timeout = timeout
        self.timeout_value = timeout_value
        self.workers = workers
        self.max_chars = max_chars
        self.too_large_value = too_large_value
        self.inputs = dict(inputs or {})
        self.cache = cache if cache is not None else ResultCache()
        self.impl = impl
        self.stats: Counter[str] = Counter()
        self.seconds = 0.0

    def __repr__(self) -> str:
        return f"<Reward {self.__name__} ({self.reward_name}) params={self.params}>"

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["stats"] = Counter()
        return state

    # -- the call ----------------------------------------------------------------------------
    def __call__(
        self,
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
        started = time.perf_counter()
        for column, dependency in self.inputs.items():
            kwargs[column] = dependency(prompts, completions, completion_ids, **kwargs)
        if self.form == "batch":
            values = self._call_batch(prompts, completions, completion_ids, kwargs)
            counts = Counter("none" if v is None else "ok" for v in values)
            labels: tuple[str, ...] = ("error",) if self.on_error == "none" else ()  # a batch counts its own
        else:
            values, counts = self._call_samples(prompts, completions, completion_ids, kwargs)
            labels = LOGGED_OUTCOMES
        seconds = time.perf_counter() - started
        self.seconds += seconds
        self.stats.update(counts)
        self.cache.put(self.__name__, completions, values)
        log_metric = kwargs.get("log_metric")
        if callable(log_metric):
            log_metric(f"timing/{self.__name__}", seconds)
            for label in labels:
                log_metric(f"outcomes/{self.__name__}/{label}", float(counts.get(label, 0)))
        return list(values)

    def _call_batch(self, prompts: Sequence[Any], completions: Sequence[Any], completion_ids: Any,
                    kwargs: dict[str, Any]) -> list[float | None]:
        try:
            raw = self.impl(prompts=prompts, completions=completions, completion_ids=completion_ids, **kwargs)
        except RewardError:
            raise
        except Exception as exc:
            if self.on_error == "raise":
                raise RewardError(self.__name__, f"raised {type(exc).__name__}: {exc}") from exc
            self.stats["error"] += len(completions)
            return [self.error_value] * len(completions)
        if raw is None or isinstance(raw, (str, bytes)) or not hasattr(raw, "__len__"):
            raise RewardError(self.__name__, f"returned {type(raw).__name__}, expected a list of floats")
        raw = list(raw)
        if len(raw) != len(completions):
            raise RewardError(self.__name__, f"returned {len(raw)} values for {len(completions)} completions")
        return [_check_value(self.__name__, v, i) for i, v in enumerate(raw)]

    def _rows(self, prompts: Sequence[Any], completions: Sequence[Any], completion_ids: Any,
              kwargs: dict[str, Any]) -> list[dict[str, Any]]:
        n = len(completions)
        per_sample = {
            k: v for k, v in kwargs.items()
            if k not in TRL_CONTROL_KWARGS and isinstance(v, (list, tuple)) and len(v) == n
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
                      kwargs: dict[str, Any]) -> tuple[list[float | None], Counter[str]]:
        n = len(completions)
        rows = self._rows(prompts, completions, completion_ids, kwargs)
        values: list[float | None] = [None] * n
        counts: Counter[str] = Counter()
        todo: list[int] = []
        texts: list[str | None] = []
        for i, completion in enumerate(completions):
            text = completion_text(completion)
            texts.append(text)
            if text is None:
                values[i] = self.invalid_value
                counts["unreadable"] += 1
            elif self.max_chars is not None and len(text) > self.max_chars:
                values[i] = self.too_large_value
                counts["too_large"] += 1
            else:
                todo.append(i)
        if self.timeout is None:
            for i in todo:
                try:
                    value = self.impl(texts[i], **rows[i])
                except Exception as exc:
                    if self.on_error == "raise":
                        raise RewardError(self.__name__, f"raised {type(exc).__name__}: {exc}", i) from exc
                    values[i] = self.error_value
                    counts["error"] += 1
                    continue
                values[i] = self._accept(value, i, counts)
        else:
            from .execution import map_with_deadline

            outcomes = map_with_deadline(
                _SampleCall(self.impl), [(texts[i], rows[i]) for i in todo], timeout=self.timeout,
                workers=self.workers,
            )
            for i, outcome in zip(todo, outcomes):
                if outcome.status == "ok":
                    values[i] = self._accept(outcome.value, i, counts)
                elif outcome.status == "timeout":
                    values[i] = self.timeout_value
                    counts["timeout"] += 1
                elif self.on_error == "raise":
                    raise RewardError(self.__name__, f"{outcome.status}: {outcome.error}", i)
                else:
                    values[i] = self.error_value
                    counts["error" if outcome.status == "error" else "crashed"] += 1
        return values, counts

    def _accept(self, value: Any, index: int, counts: Counter[str]) -> float | None:
        try:
            checked = _check_value(self.__name__, value, index)
        except RewardError:
            if self.on_error == "raise":
                raise
            counts["error"] += 1
            return self.error_value
        counts["none" if checked is None else "ok"] += 1
        return checked


def make_reward(info: Any, params: dict[str, Any] | None = None, *, name: str | None = None,
                **options: Any) -> Reward:
    """Build a :class:`Reward` from a registry entry with its parameters and execution options."""
    defaults = {"invalid_value": info.invalid_value, "timeout": info.timeout if info.worker_safe else None,
                "max_chars": info.max_chars}
    defaults.update(options)
    return Reward(
        info.obj,
        name=name or info.name,
        reward_name=info.name,
        form=info.form,
        params=params,
        columns=info.columns,
        units=info.units,
        **defaults,
    )
