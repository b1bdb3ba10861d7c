"""The Ray backend: each sample of a worker-safe per-sample reward runs as one task on a Ray cluster.

It offers what the local pool offers a :class:`~grpo_rewards.Reward` — ``map(func, items, timeout)``
returning one :class:`~.messages.Outcome` per item, in order — so the reward's labels, error policy
and values are the same on both. What differs is where the work runs:

- Each item is a Ray *generator* task that yields once when the function is loaded and the item
  starts, then yields its result. The item's deadline is measured from that first yield (a task
  waiting for a free CPU, or a worker starting, is not charged for it); an item past its deadline
  is cancelled with ``ray.cancel(..., force=True)``, which kills the Ray worker process running it,
  and gets ``Outcome("timeout")``.
- A task that fails for a reason of Ray's (its worker was killed, its node was lost, the object
  holding its result is gone) gets ``Outcome("crashed")``; Ray does not retry it
  (``max_retries=0``), so nothing runs twice. A task that cannot start because no node alive has
  the CPUs it asks for is given up as ``crashed`` after :data:`~.batch.STARTUP_TIMEOUT` seconds.
- The reward's code never runs in the Ray worker itself: the task hands its item to a worker
  process of the reward's own that the Ray worker keeps (the local pool, :func:`~.pool.get_pool`
  keyed by the reward, one process per reward in each Ray worker, started on the first item and
  kept warm), so rewards never share a process's Python state on Ray either: one that patches a
  class or sets a module global cannot change what another pays. That process is contained as the
  local pool's are (:mod:`.containment`: whatever the item starts ends with it; a force-cancelled
  Ray worker takes it down). (Ray's own per-runtime-environment workers would isolate too, but a
  node keeps only as many idle workers as it has CPUs, so with several rewards Ray would kill and
  restart them at every step.)
- ``max_memory`` caps the address space of the process that runs the item (default: the local
  pool's, :func:`~.memory.default_max_memory`, for one worker per CPU of the node); an allocation
  past it raises ``MemoryError`` and the item gets ``Outcome("memory")``.
- A lost connection to the cluster (Ray shut down in this process, or a batch that fails with a
  connection error: its open items are settled as ``crashed``) is followed by one reconnect at the
  start of the next batch: ``ray.shutdown()``, then ``ray.init`` to the address the backend had
  connected to, logged as a warning on the ``grpo_rewards.execution.ray_backend`` logger; when
  that fails the batch raises :class:`~grpo_rewards.errors.ExecutionError`. Nothing ever falls
  back to local execution. Each batch first checks that the cluster still takes a connection at
  its address (:meth:`RayBackend.cluster_lost`, one TCP connect): a head that went away between two
  batches is found there, the connection is given up at once and the batch reconnects once or
  raises. (A driver connected to a head that dies is otherwise ended by Ray itself, after its
  ``gcs_rpc_server_reconnect_timeout_s``, or at once when the raylet it is attached to died with
  the head, even in the middle of a batch: that is Ray's loud failure, not one of ours; an
  environment on Ray gives the connection up the same way when a failed call finds the cluster gone.)
- Ray Client addresses (``ray://``) are refused with a clear error: Ray Client cannot run the
  generator tasks the deadlines need.
- A process forked from one connected to Ray (``multiprocessing``'s fork, ``datasets.map(num_proc=…)``)
  cannot use that connection (Ray does not survive ``fork()``: its first call would wait for ever):
  every batch there raises :class:`~grpo_rewards.errors.ExecutionError` saying so.

``ray`` is imported on first use only (``pip install 'grpo-rewards[ray]'``). The cluster's workers
need the reward's packages installed, as the training process has them.
"""

from __future__ import annotations

import logging
import os
import pickle
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import params
from ..errors import ExecutionError
from .batch import STARTUP_TIMEOUT
from .messages import Outcome, check_timeout, pickled_function
from .ray_task import GO, probe, run_item

__all__ = ["RayBackend", "get_ray_backend"]

log = logging.getLogger(__name__)

#: Seconds between checks that a cluster still has a node that can run a task waiting to start.
FEASIBLE_CHECK = 5.0
#: Seconds to wait for the cluster's address to answer before a clear error (``ray.init`` would wait for ever).
CONNECT_TIMEOUT = 10.0


# -- the driver side --------------------------------------------------------------------------------
@dataclass
class _Task:
    index: int
    submitted: float
    started: float | None = None
    checked: float = field(default=0.0)


class RayBackend:
    """Runs items as Ray tasks on the cluster at ``address``, ``num_cpus_per_task`` CPUs each.

    Connects on first use (or :meth:`connect`); a process that is already connected to Ray (a
    training framework called ``ray.init``) uses that connection. Thread-safe: rewards scored
    concurrently share one backend.
    """

    def __init__(self, address: str = "auto", num_cpus_per_task: float = 1.0) -> None:
        self.address = address
        self.num_cpus_per_task = float(num_cpus_per_task)
        self._ray: Any = None
        self._task: Any = None
        #: the cluster's own address once connected (what a reconnect goes back to)
        self.connected_address: str | None = None
        #: why the connection was lost (set by the batch that lost it; the next connect reconnects)
        self._lost: str | None = None
        self._lock = threading.Lock()
        self.stats = {"tasks": 0, "cancelled_timeout": 0, "crashed": 0, "connects": 0, "reconnects": 0}

    def __repr__(self) -> str:
        return f"<RayBackend address={self.address!r} num_cpus_per_task={self.num_cpus_per_task:g}>"

    # -- connection --------------------------------------------------------------------------------
    def connect(self) -> None:
        """Connect to the cluster and check it can run a task; :class:`ExecutionError` when it cannot.

        After a lost connection (see :meth:`map`), reconnects once: ``ray.shutdown()``, then
        ``ray.init`` to the address it had connected to; :class:`ExecutionError` when that fails.
        """
        with self._lock:
            try:
                import ray
            except ImportError as exc:
                raise ExecutionError(f"execution backend ray needs Ray, which is not installed here ({exc}): "
                                     "pip install 'grpo-rewards[ray]'") from exc
            if _forked_from is not None:
                raise ExecutionError(
                    f"execution backend ray cannot run in this process (pid {os.getpid()}): it was forked from process "
                    f"{_forked_from}, which had connected to Ray, and Ray cannot be used across fork() (a call here "
                    "would wait for ever). Score in the process that connected, or start this one with the spawn "
                    "method (multiprocessing.get_context('spawn'); datasets.map without num_proc); rewards never "
                    "fall back to local execution")
            if self._task is not None and self._lost is None and not ray.is_initialized():
                self._lost = "Ray was shut down in this process"
            if self._task is not None and self._lost is None:
                return
            if self.address.startswith("ray://"):
                raise ExecutionError(
                    f"execution backend ray cannot use the Ray Client address {self.address!r}: Ray Client does not "
                    "run the generator tasks the backend's deadlines need; run the training process on a node of the "
                    "cluster (`ray start --address=<head>:6379 --num-cpus=0` on it) and use the head's address")
            if self._lost is not None:
                self._reconnect(ray)
            else:
                self._first_connect(ray)

    def _first_connect(self, ray: Any) -> None:
        try:
            if not ray.is_initialized():
                _check_reachable(self.address)
                ray.init(address=self.address, logging_level=logging.WARNING, configure_logging=False)
            self.stats["connects"] += 1
            cpus = float(ray.cluster_resources().get("CPU", 0.0))
        except Exception as exc:
            raise ExecutionError(
                f"cannot connect to the Ray cluster at {self.address!r}: {type(exc).__name__}: {exc} "
                "(start one with `ray start --head`, or set RAY_ADDRESS / execution.address to a running one; "
                "rewards never fall back to local execution)") from exc
        self._ready(ray, cpus)

    def _reconnect(self, ray: Any) -> None:
        """One reconnect after a lost connection: ``ray.shutdown()``, then ``ray.init`` to the same address."""
        address = self.connected_address or self.address
        log.warning("lost the connection to the Ray cluster at %s (%s); reconnecting once: ray.shutdown(), then "
                    "ray.init(address=%r)", address, self._lost, address)
        self._task = None
        self.stats["reconnects"] += 1
        try:
            ray.shutdown()
            _check_reachable(address)
            ray.init(address=address, logging_level=logging.WARNING, configure_logging=False)
            cpus = float(ray.cluster_resources().get("CPU", 0.0))
        except Exception as exc:
            raise ExecutionError(
                f"lost the connection to the Ray cluster at {address!r} ({self._lost}) and reconnecting failed: "
                f"{type(exc).__name__}: {exc} (the next batch tries once more; rewards never fall back to local "
                "execution)") from exc
        self._ready(ray, cpus)
        log.warning("reconnected to the Ray cluster at %s", address)

    def _ready(self, ray: Any, cpus: float) -> None:
        """Check the cluster connected to can run a task, then take it into use."""
        if cpus < self.num_cpus_per_task:
            raise ExecutionError(f"the Ray cluster at {self.address!r} has {cpus:g} CPU(s); a reward task asks "
                                 f"for {self.num_cpus_per_task:g} (execution.num_cpus_per_task)")
        probe_task = ray.remote(num_cpus=self.num_cpus_per_task, max_retries=0)(probe)
        try:
            ray.get(probe_task.remote(), timeout=STARTUP_TIMEOUT)
        except Exception as exc:
            raise ExecutionError(
                f"the Ray cluster at {self.address!r} cannot run grpo-rewards tasks: {type(exc).__name__}: "
                f"{str(exc).strip().splitlines()[-1] if str(exc).strip() else ''} (install grpo-rewards and "
                "the reward packages on every node)") from exc
        self._ray = ray
        self._task = ray.remote(num_cpus=self.num_cpus_per_task, max_retries=0, retry_exceptions=False)(run_item)
        self.connected_address = _gcs_address(ray) or self.connected_address
        self._lost = None

    def disconnect(self, why: str | None = None) -> None:
        """Forget the connection; ``why`` (the connection was lost): the next batch reconnects once
        (``ray.shutdown()``, then ``ray.init``), else it connects as the first did and Ray stays as it is."""
        with self._lock:
            if why is not None and self._task is not None:
                self._lost = why
            else:
                self._task = None

    def cluster_lost(self, why: str) -> str | None:
        """After work failed for a reason of Ray's (``why``): None while the cluster connected to still
        takes a connection at its address; else why it is lost. The connection is then given up at
        once (``ray.shutdown()``: a driver left without its head's GCS is ended by Ray after
        ``gcs_rpc_server_reconnect_timeout_s``), logged, and the next :meth:`connect` reconnects once."""
        with self._lock:
            address = self.connected_address or self.address
            try:
                _check_reachable(address)
                return None
            except ConnectionError as exc:
                lost = f"{why}; the Ray cluster at {address} does not answer ({exc})"
            import ray

            log.warning("%s: giving up the connection now (ray.shutdown()); the next use reconnects once", lost)
            if self._task is not None:
                self._lost = lost
            ray.shutdown()
            return lost

    def slots(self) -> int:
        """How many tasks the cluster can run at once now."""
        cpus = float(self._ray.cluster_resources().get("CPU", 0.0))
        return max(1, int(cpus // self.num_cpus_per_task))

    # -- work ----------------------------------------------------------------------------------------
    def map(self, func: Callable[..., Any], items: Sequence[tuple[Any, ...]], timeout: float | None = None,
            max_memory: int | str | None = None, owner: str = "") -> list[Outcome]:
        """Run ``func(*args)`` for every ``args`` as a Ray task; one :class:`Outcome` each, in order.

        ``timeout`` bounds each item from the moment it starts; ``max_memory`` the address space of
        the process that runs it (bytes; None: the default cap; 0: none). ``owner`` names whose work
        it is (a reward): in each Ray worker, each owner's items run in a worker process of its own.
        """
        check_timeout(timeout)
        cap = None if max_memory is None else params.size(max_memory, "max_memory")
        if not items:
            return []
        payload = pickled_function(func, "a Ray task")
        self.connect()
        if self.cluster_lost("the cluster went away since the last batch") is not None:
            self.connect()  # one reconnect, or ExecutionError: never a batch sent to a head that is gone
        ray = self._ray
        outcomes: list[Outcome | None] = [None] * len(items)
        try:
            self._run(ray, owner, payload, list(items), timeout, cap, outcomes)
        except (ray.exceptions.RaySystemError, ConnectionError, OSError) as exc:
            self.disconnect(f"{type(exc).__name__}: {_first_line(exc)}")
            for i, outcome in enumerate(outcomes):
                if outcome is None:
                    outcomes[i] = Outcome("crashed", None, f"lost the connection to the Ray cluster: {exc}")
        return [o for o in outcomes if o is not None]

    def _run(self, ray: Any, owner: str, payload: bytes, items: list[tuple[Any, ...]],
             timeout: float | None, max_memory: int | None, outcomes: list[Outcome | None]) -> None:
        payload_ref = ray.put(payload)
        paths = [p for p in sys.path if p and os.path.isdir(p)]
        queue = list(range(len(items)))[::-1]
        running: dict[int, tuple[Any, _Task]] = {}  # id(generator) -> (generator, task)
        width = 2 * self.slots()

        def settle(task: _Task, outcome: Outcome) -> None:
            outcomes[task.index] = outcome
            if outcome.status == "crashed":
                self.stats["crashed"] += 1

        try:
            while queue or running:
                while queue and len(running) < width:
                    i = queue.pop()
                    task = _Task(i, time.monotonic())
                    try:
                        gen = self._task.remote(payload_ref, paths, items[i], max_memory, owner)
                    except (TypeError, pickle.PicklingError, ValueError) as exc:
                        settle(task, Outcome("error", None, f"cannot send the sample to a Ray task: {exc}"))
                        continue
                    self.stats["tasks"] += 1
                    running[id(gen)] = (gen, task)
                if not running:
                    continue
                now = time.monotonic()
                wait_for = self._next_check(running.values(), timeout, now)
                gens = [g for g, _ in running.values()]
                ready, _ = ray.wait(gens, num_returns=1, timeout=wait_for)
                if ready:
                    rest = [g for g in gens if g is not ready[0]]
                    more, _ = ray.wait(rest, num_returns=len(rest), timeout=0) if rest else ([], [])
                    for gen in [*ready, *more]:
                        self._receive(ray, gen, running, settle, timeout)
                self._expire(ray, running, settle, timeout)
        except BaseException:
            for gen, _ in running.values():  # nothing of this batch keeps running on the cluster
                try:
                    ray.cancel(gen, force=True)
                except Exception:
                    pass
            raise

    @staticmethod
    def _next_check(tasks: Any, timeout: float | None, now: float) -> float:
        times = []
        for _, task in tasks:
            if task.started is None:
                times.append(max(task.submitted + STARTUP_TIMEOUT, task.checked + FEASIBLE_CHECK))
            elif timeout is not None:
                times.append(task.started + timeout)
        return max(0.0, min(times) - now) if times else FEASIBLE_CHECK

    def _receive(self, ray: Any, gen: Any, running: dict[int, tuple[Any, _Task]],
                 settle: Callable[[_Task, Outcome], None], timeout: float | None) -> None:
        _, task = running[id(gen)]
        try:
            message = ray.get(next(gen))
        except StopIteration:
            message = ("crashed", "the Ray task ended without a result")
        except ray.exceptions.TaskCancelledError:
            message = ("crashed", "the Ray task was cancelled by someone else")
        except ray.exceptions.OutOfMemoryError as exc:
            message = ("memory", f"Ray's memory monitor killed the task's worker: {_first_line(exc)}")
        except ray.exceptions.RayError as exc:  # worker killed, node lost, object lost
            message = ("crashed", f"{type(exc).__name__}: {_first_line(exc)}")
        if message == GO:
            task.started = time.monotonic()
            return
        del running[id(gen)]
        status, value = message
        settle(task, Outcome("ok", value) if status == "ok" else Outcome(status, None, value))

    def _expire(self, ray: Any, running: dict[int, tuple[Any, _Task]], settle: Callable[[_Task, Outcome], None],
                timeout: float | None) -> None:
        now = time.monotonic()
        for ident, (gen, task) in list(running.items()):
            if task.started is not None:
                if timeout is not None and now > task.started + timeout:
                    ray.cancel(gen, force=True)  # kills the worker process that runs it
                    self.stats["cancelled_timeout"] += 1
                    del running[ident]
                    settle(task, Outcome("timeout", None, f"exceeded its {timeout:g} s deadline"))
            elif now > task.submitted + STARTUP_TIMEOUT and now >= task.checked + FEASIBLE_CHECK:
                task.checked = now
                cpus = float(ray.cluster_resources().get("CPU", 0.0))
                if cpus < self.num_cpus_per_task:
                    ray.cancel(gen, force=True)
                    del running[ident]
                    settle(task, Outcome("crashed", None, f"no node of the Ray cluster can run the task (the nodes "
                                                          f"alive have {cpus:g} CPU(s), it asks for "
                                                          f"{self.num_cpus_per_task:g})"))


def _check_reachable(address: str) -> None:
    """Raise ``ConnectionError`` unless the cluster's address takes a TCP connection within
    :data:`CONNECT_TIMEOUT` seconds: ``ray.init`` itself retries an unreachable address for ever."""
    import socket

    from ray._private import services  # how ray.init reads "auto": RAY_ADDRESS, then the last `ray start`

    try:
        target = services.canonicalize_bootstrap_address_or_die(address)
    except ConnectionError:
        raise
    except Exception as exc:
        raise ConnectionError(str(exc)) from exc
    if not target:
        raise ConnectionError("no Ray cluster is running here (none was started with `ray start --head`, and "
                              "RAY_ADDRESS is not set)")
    host, _, port = target.rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT).close()
    except (OSError, ValueError) as exc:
        raise ConnectionError(f"nothing answers at {target} ({exc})") from exc


def _gcs_address(ray: Any) -> str | None:
    """The address of the cluster this process is connected to (``host:port`` of its GCS), if Ray says."""
    try:
        address = ray.get_runtime_context().gcs_address
    except Exception:
        return None
    return address if isinstance(address, str) and address else None


def _first_line(exc: BaseException) -> str:
    lines = [line for line in str(exc).strip().splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


_backends: dict[tuple[str, float], RayBackend] = {}
_backends_lock = threading.Lock()
#: in a process forked from one connected to Ray: that process's pid (see the module's docstring)
_forked_from: int | None = None


def _after_fork_in_child() -> None:
    global _backends_lock, _forked_from
    _backends_lock = threading.Lock()
    for backend in _backends.values():
        backend._lock = threading.Lock()
    ray = sys.modules.get("ray")
    try:
        connected = ray is not None and bool(ray.is_initialized())
    except Exception:  # a partly imported ray: not connected
        connected = False
    if connected and _forked_from is None:
        _forked_from = os.getppid()


os.register_at_fork(after_in_child=_after_fork_in_child)


def get_ray_backend(address: str = "auto", num_cpus_per_task: float = 1.0) -> RayBackend:
    """The process-wide backend for one cluster address and task size (connected on first use)."""
    with _backends_lock:
        backend = _backends.get((address, num_cpus_per_task))
        if backend is None:
            backend = _backends[(address, num_cpus_per_task)] = RayBackend(address, num_cpus_per_task)
        return backend
