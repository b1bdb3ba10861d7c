"""``Execution``: which backend runs a reward's per-sample work — the local worker pool or a Ray cluster.

It is the ``execution`` field of :class:`~grpo_rewards.RewardOptions`, given in a reward set per
entry or for the whole set::

    execution: {backend: ray, address: auto, num_cpus_per_task: 1}

``local`` (the default) runs samples in-process, or in this machine's worker processes when the
reward has a ``timeout``. ``ray`` sends every sample of a worker-safe per-sample reward to a Ray
cluster as one task, with or without a ``timeout``; nothing imports ``ray`` until such a reward
first runs (``pip install 'grpo-rewards[ray]'``).

>>> Execution.parse({"backend": "ray", "num_cpus_per_task": 2})
Execution(backend='ray', address='auto', num_cpus_per_task=2.0)
>>> Execution.parse("local").as_dict()
{'backend': 'local'}
>>> execution_problems({"backend": "spark"})
["execution.backend must be one of local, ray, got 'spark'"]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from . import params
from .errors import quote

Backend = Literal["local", "ray"]
#: The backends, in the order an error lists them.
BACKENDS: tuple[Backend, ...] = ("local", "ray")
#: The keys of an ``execution:`` mapping.
EXECUTION_KEYS = ("backend", "address", "num_cpus_per_task")
#: The address a Ray backend connects to unless told otherwise: ``RAY_ADDRESS``, else the cluster
#: started on this machine (``ray start --head``).
DEFAULT_RAY_ADDRESS = "auto"


@dataclass(frozen=True)
class Execution:
    """Where a reward's samples run.

    - ``backend``: ``local`` (this machine) or ``ray`` (a Ray cluster).
    - ``address``: the Ray cluster to connect to (``auto``, ``host:6379``; a Ray Client ``ray://``
      address is refused when the backend connects); a ``ray`` setting only.
    - ``num_cpus_per_task``: the CPUs Ray reserves for each sample's task; a ``ray`` setting only.
    """

    backend: Backend = "local"
    address: str | None = None
    num_cpus_per_task: float | None = None

    def __post_init__(self) -> None:
        problems = execution_problems(self.as_dict())
        if problems:
            raise ValueError("; ".join(problems))
        if self.backend == "ray":
            object.__setattr__(self, "address", self.address or DEFAULT_RAY_ADDRESS)
            object.__setattr__(self, "num_cpus_per_task", float(self.num_cpus_per_task or 1.0))

    @classmethod
    def parse(cls, value: Execution | Mapping[str, Any] | str | None) -> Execution:
        """An :class:`Execution` from itself, a mapping of its fields, or a backend name (None: local)."""
        if isinstance(value, Execution):
            return value
        if value is None:
            return cls()
        if isinstance(value, str):
            return cls(backend=value)  # type: ignore[arg-type]  # checked in __post_init__
        if isinstance(value, Mapping):
            problems = execution_problems(value)
            if problems:
                raise ValueError("; ".join(problems))
            return cls(**dict(value))
        raise ValueError(f"execution must be a mapping such as {{backend: ray}}, got {quote(value)}")

    @property
    def remote(self) -> bool:
        """Whether the samples leave this machine's process tree (every backend but ``local``)."""
        return self.backend != "local"

    def as_dict(self) -> dict[str, Any]:
        """The fields that are set, as a reward-set file writes them."""
        out: dict[str, Any] = {"backend": self.backend}
        if self.address is not None:
            out["address"] = self.address
        if self.num_cpus_per_task is not None:
            out["num_cpus_per_task"] = self.num_cpus_per_task
        return out

    def describe(self) -> str:
        """One line for a training header or ``show``: ``ray (address auto, 1 CPU per task)``."""
        if not self.remote:
            return "local"
        return f"{self.backend} (address {self.address}, {self.num_cpus_per_task:g} CPU per task)"


def execution_problems(value: Any) -> list[str]:
    """Every problem with an ``execution:`` value (a mapping, a backend name, or an :class:`Execution`)."""
    if value is None or isinstance(value, Execution):
        return []
    if isinstance(value, str):
        value = {"backend": value}
    if not isinstance(value, Mapping):
        return [f"execution must be a mapping such as {{backend: ray}}, got {quote(value)}"]
    problems = []
    unknown = sorted(set(value) - set(EXECUTION_KEYS), key=str)
    if unknown:
        problems.append(f"execution: unknown key(s) {', '.join(map(str, unknown))} "
                        f"(keys: {', '.join(EXECUTION_KEYS)})")
    backend = value.get("backend", "local")
    try:
        params.choice(backend, "execution.backend", BACKENDS)
    except ValueError as exc:
        problems.append(str(exc))
    for key, check in (("address", lambda v: params.text(v, "execution.address", none_ok=True)),
                       ("num_cpus_per_task",
                        lambda v: params.number(v, "execution.num_cpus_per_task", positive=True, none_ok=True))):
        if key not in value:
            continue
        try:
            check(value[key])
        except ValueError as exc:
            problems.append(str(exc))
            continue
        if backend == "local" and value[key] is not None:
            problems.append(f"execution.{key} is a Ray setting; it needs backend: ray")
    return problems


def form_problem(form: str, execution: Any, reward: str) -> str | None:
    """Why a reward of ``form`` cannot run where ``execution`` says (a batch reward on Ray), or None."""
    if form != "batch" or execution_problems(execution):
        return None
    backend = Execution.parse(execution).backend
    if backend == "local":
        return None
    return f"execution backend {backend} runs per-sample rewards, and {reward} is a batch reward: use backend: local"
