"""``RewardOptions``: how the core runs a reward (deadlines, error policy, workers, size guard).

One frozen, typed record, used everywhere the options appear: a plugin's ``register(...,
options=RewardOptions(...))`` (or the same names as keywords), the registry's ``RewardInfo.options``,
a reward-set entry's keys (``timeout: 2``), ``Reward(..., options=...)`` and
``get_reward(name, options=...)``. Reward parameters may never use these names.

>>> RewardOptions(timeout=2.0).replace(workers=4)
RewardOptions(timeout=2.0, timeout_value=None, on_error='raise', error_value=None, workers=4, \
max_chars=None, too_large_value=None, worker_safe=True, invalid_value=None, max_memory=None, \
execution=Execution(backend='local', address=None, num_cpus_per_task=None))
>>> RewardOptions(workers=-3)
Traceback (most recent call last):
...
ValueError: workers must be an integer >= 1 or None, got -3
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from . import params
from .backends import Execution, execution_problems
from .errors import capped, quote

OnError = Literal["raise", "none"]

#: The default ``execution``: this machine.
LOCAL = Execution()

#: The choices of ``on_error``.
ON_ERROR: tuple[OnError, ...] = ("raise", "none")


@dataclass(frozen=True)
class RewardOptions:
    """How the core runs one reward; every field has a safe default.

    - ``timeout``: hard deadline in seconds; set, the reward runs in worker processes that are
      killed on overrun. Per sample for a per-sample reward, for the whole call for a batch reward.
    - ``timeout_value``: the value of a sample whose deadline passed (label ``timeout``).
    - ``on_error``: ``"raise"`` stops with a :class:`~grpo_rewards.errors.RewardError` naming the
      reward and the sample; ``"none"`` gives ``error_value`` (label ``error``, or ``crashed`` when
      a worker died).
    - ``error_value``: the value of a sample whose scoring failed under ``on_error: none``.
    - ``workers``: how many worker processes (default: the machine's CPUs, shared by rewards).
    - ``max_chars``: completions longer than this get ``too_large_value`` unread (label ``too_large``).
    - ``too_large_value``: the value of a completion longer than ``max_chars``.
    - ``worker_safe``: whether the reward's code may run in a worker process (the plugin says so
      at registration; a reward that is not cannot have a ``timeout``).
    - ``invalid_value``: the value of a completion with no readable text (label ``unreadable``).
    - ``max_memory``: each worker's memory cap while it runs this reward (bytes, or a size such as
      ``"2 GiB"``; default the smaller of 4 GiB and the machine's memory divided by the workers plus
      one; ``0``: none). A sample past it gets ``error_value`` with the label ``memory``, whatever
      ``on_error`` says (like a timeout, it is the sample's cost, not a bug).
    - ``execution``: where the samples run (:class:`~grpo_rewards.backends.Execution`: the local
      pool, or ``{backend: ray, address: auto, num_cpus_per_task: 1}`` for a Ray cluster).
    """

    timeout: float | None = None
    timeout_value: float | None = None
    on_error: OnError = "raise"
    error_value: float | None = None
    workers: int | None = None
    max_chars: int | None = None
    too_large_value: float | None = None
    worker_safe: bool = True
    invalid_value: float | None = None
    max_memory: int | str | None = None
    execution: Execution = LOCAL

    def __post_init__(self) -> None:
        problems = check_options({f.name: getattr(self, f.name) for f in dataclasses.fields(self)})
        if problems:
            raise ValueError("; ".join(problems))
        if isinstance(self.max_memory, str):
            object.__setattr__(self, "max_memory", params.size(self.max_memory, "max_memory"))
        object.__setattr__(self, "execution", Execution.parse(self.execution))
        for name in ("timeout", "timeout_value", "error_value", "too_large_value", "invalid_value"):
            value = getattr(self, name)
            if value is not None and type(value) is not float:
                object.__setattr__(self, name, float(value))

    def replace(self, **changes: Any) -> RewardOptions:
        """A copy with ``changes`` applied (checked like the constructor)."""
        problem = unknown_options(changes)
        if problem:
            raise ValueError(problem)
        return dataclasses.replace(self, **changes)

    def merged(self, overrides: RewardOptions | Mapping[str, Any] | None) -> RewardOptions:
        """These options with ``overrides`` applied: a mapping sets the keys it names; a
        ``RewardOptions`` sets the fields it does not leave at their default.

        >>> RewardOptions(timeout=1.0).merged(RewardOptions(workers=2)).timeout
        1.0
        >>> RewardOptions(timeout=1.0).merged({"timeout": None}).timeout is None
        True
        """
        if overrides is None:
            return self
        if isinstance(overrides, RewardOptions):
            overrides = {f.name: getattr(overrides, f.name) for f in dataclasses.fields(RewardOptions)
                         if getattr(overrides, f.name) != f.default}
        return self.replace(**dict(overrides))

    def changed(self) -> dict[str, Any]:
        """The fields that differ from the defaults (what a manifest or ``show`` prints).

        >>> RewardOptions(timeout=1.0, timeout_value=0.0).changed()
        {'timeout': 1.0, 'timeout_value': 0.0}
        """
        changed = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                   if getattr(self, f.name) != f.default}
        if "execution" in changed:
            changed["execution"] = self.execution.as_dict()
        return changed


#: Every option name, in declaration order; no reward parameter may be named like one.
OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(RewardOptions))

#: The options a reward-set entry (or ``get_reward``) may set: all but ``worker_safe``, which
#: is the plugin's statement about its own code.
ENTRY_OPTIONS: tuple[str, ...] = tuple(n for n in OPTION_NAMES if n != "worker_safe")

_VALUE_OPTIONS = ("timeout_value", "error_value", "too_large_value", "invalid_value")


def unknown_options(given: Iterable[Any], allowed: Sequence[str] | None = None) -> str | None:
    """The one message for option names that are not options (``None`` when every name is one).

    >>> unknown_options({"timout": 1})
    'unknown option(s) timout (options: timeout, timeout_value, on_error, error_value, workers, max_chars, \
too_large_value, worker_safe, invalid_value)'
    """
    allowed = OPTION_NAMES if allowed is None else allowed
    unknown = sorted(str(k) for k in given if k not in allowed)
    if not unknown:
        return None
    return f"unknown option(s) {capped(unknown)} (options: {', '.join(allowed)})"


def _value(value: Any, name: str) -> Any:
    return params.number(value, name, none_ok=True)


def check_options(values: Mapping[str, Any]) -> list[str]:
    """Every problem with these option values (types, ranges, and combinations), one line each.

    >>> check_options({"max_chars": -1, "on_error": "ignore"})
    ["on_error must be one of raise, none, got 'ignore'", 'max_chars must be an integer >= 1 or None, got -1']
    >>> check_options({"timeout": 2, "worker_safe": False})
    ['timeout needs worker processes, and this reward is registered worker_safe=False (its code cannot \
run in one); remove the timeout']
    """
    problems: list[str] = []
    unknown = unknown_options(values)
    if unknown:
        problems.append(unknown)
    checks: dict[str, Callable[[Any], Any]] = {
        "timeout": lambda v: params.number(v, "timeout", positive=True, none_ok=True),
        "on_error": lambda v: params.choice(v, "on_error", ON_ERROR),
        "workers": lambda v: params.integer(v, "workers", low=1, none_ok=True),
        "max_chars": lambda v: params.integer(v, "max_chars", low=1, none_ok=True),
        "worker_safe": lambda v: params.boolean(v, "worker_safe"),
        "max_memory": _memory,
        "execution": _execution,
    }
    for value_option in _VALUE_OPTIONS:
        checks[value_option] = functools.partial(_value, name=value_option)
    for name in OPTION_NAMES:
        if name in values:
            try:
                checks[name](values[name])
            except ValueError as exc:
                problems.append(str(exc))
    if values.get("worker_safe") is False and values.get("timeout") is not None:
        problems.append("timeout needs worker processes, and this reward is registered worker_safe=False "
                        "(its code cannot run in one); remove the timeout")
    remote = _remote_backend(values.get("execution"))
    if remote and values.get("worker_safe") is False:
        problems.append(f"execution backend {remote} runs samples in other processes, and this reward is registered "
                        "worker_safe=False (its code cannot run in one); use backend: local")
    if remote and values.get("workers") is not None:
        problems.append(f"workers counts this machine's worker processes; with execution backend {remote} the "
                        "cluster's CPUs and num_cpus_per_task set the parallelism: remove workers")
    return problems


#: the least memory cap a worker can run a Python scorer under (its interpreter alone maps more)
MIN_MEMORY = 64 << 20


def _memory(value: Any) -> None:
    """``max_memory``: a size, 0 (no cap) or at least :data:`MIN_MEMORY` (``max_memory: 512`` is 512 bytes: every
    sample would fail for memory, so a number meant as megabytes is an error, not a run that scores nothing)."""
    if value is None:
        return
    cap = params.size(value, "max_memory")
    if 0 < cap < MIN_MEMORY:
        bare = str(value).strip().isdigit()
        raise ValueError(f"max_memory {quote(value)} is {cap:,} bytes, below what a worker needs to run Python "
                         "(64 MiB): every sample would fail for memory; "
                         + (f"a number is bytes: write '{str(value).strip()} MiB' or '2 GiB'" if bare
                            else "give at least 64 MiB") + ", or 0 for no cap")


def _execution(value: Any) -> None:
    problems = execution_problems(value)
    if problems:
        raise ValueError("; ".join(problems))


def _remote_backend(value: Any) -> str | None:
    """The name of the remote backend a valid ``execution`` value asks for, else None."""
    if execution_problems(value):
        return None
    backend = Execution.parse(value).backend
    return backend if backend != "local" else None
