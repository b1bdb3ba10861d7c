"""An environment whose tool calls run on a Ray cluster: one Ray actor per environment instance TRL keeps.

When the trainers' node has few CPUs, an environment's tools (a sandbox, a database) can run on
the cluster's CPU nodes with the same ``execution:`` setting rewards use. TRL still sees a local
object: :func:`remote_environment_class` makes, for a registered environment *class*, a stand-in
class of the same name whose ``reset`` and tool methods carry the real ones' names, signatures and
docstrings (``functools.wraps``), so TRL's ``inspect.getmembers(type(env), inspect.isfunction)``
and ``get_json_schema`` find the same tools with the same schemas. Each call is sent to the
instance's own actor, which holds the real environment, so its state carries across the calls of
one rollout as it does locally.

- The actor is created at the instance's first ``reset`` (TRL's probe instance never makes one). It
  reserves :data:`ACTOR_CPUS` of a CPU: it runs only on a node that has CPUs (not on a trainer node
  started with ``--num-cpus=0``), and the many instances TRL keeps (one per completion of a
  generation batch) do not wait for one another's CPUs on a small cluster.
- Each call has a deadline (``timeout``, default :data:`DEFAULT_TIMEOUT` seconds): a call past it
  kills the actor (``ray.kill``) and raises, which TRL's tool loop turns into the tool's
  ``{"error": ...}`` result; the rollout's state is gone with the actor, so every later call of that
  rollout raises too, until the next ``reset`` starts a new actor. A lost actor (its node died)
  is the same: an error for the rest of the rollout, a new actor at the next reset (a ``reset``
  that finds its actor lost, or overrunning, tries once more on a new one). Nothing falls back to
  running the tool locally.
- The connection is the Ray backend's (:func:`~.ray_backend.get_ray_backend`): the same address, the
  same clear error when the cluster cannot be reached, the same one reconnect after a lost one
  (the actors made before it are forgotten; the next ``reset`` of each instance makes a new one).
- A lost cluster: a call that fails for a reason of Ray's (or overruns) asks the backend whether
  the cluster still answers (:meth:`~.ray_backend.RayBackend.cluster_lost`); when it does not, the
  connection is given up at once (``ray.shutdown()``, so Ray does not end this process after
  ``gcs_rpc_server_reconnect_timeout_s`` without its GCS) and the call is a tool error saying so.
  Every instance's actor went with the connection: its later calls are errors until its next
  ``reset``. A ``reset`` that cannot start a rollout on the cluster (the reconnect fails, the actor
  cannot start) returns None and logs a warning; the rollout's calls are errors and its reward
  None (``env_error``). The first ``reset`` after the cluster is back reconnects once and makes a
  new actor. No call waits on a lost cluster, and only the environment's own errors leave a
  ``reset``.
- ``get_reward`` stays hidden from TRL (no method of the stand-in); :func:`remote_reward` asks the
  actor for it and for the environment's ``outcome`` label, so the core scores it once under the
  environment's name (:mod:`grpo_rewards.env_reward`).

The cluster's nodes need the environment's package installed, as for rewards on Ray.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import os
import sys
from typing import Any

from ..errors import ExecutionError, PluginError, RolloutLost
from .batch import STARTUP_TIMEOUT
from .ray_backend import _first_line

__all__ = ["ACTOR_CPUS", "DEFAULT_TIMEOUT", "RemoteEnvironment", "RolloutLost", "remote_environment_class", "remote_reward"]

#: The CPUs each environment actor reserves: enough to keep it off CPU-less nodes, little enough that
#: a hundred instances share one CPU (they mostly wait for the model).
ACTOR_CPUS = 0.01
#: Seconds one remote tool call (or ``reset``, ``get_reward``) may take unless the entry says ``timeout:``.
DEFAULT_TIMEOUT = 60.0

log = logging.getLogger(__name__)


class _Holder:
    """The actor's body: the real environment, built from the (picklable) factory in the actor."""

    def __init__(self, factory: Any, paths: list[str]) -> None:
        missing = [p for p in paths if p not in sys.path]
        if missing:  # after the worker's own path, as the backend's tasks do: what the node has comes first
            sys.path.extend(missing)
        self.environment = factory()

    def call(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        result = getattr(self.environment, name)(*args, **kwargs)
        if inspect.isawaitable(result):
            result = asyncio.run(_awaited(result))
        return result

    def reward(self) -> tuple[Any, Any]:
        # built by EnvironmentFactory.local(): the real class, its get_reward never hidden here
        get_reward = getattr(self.environment, "get_reward", None)
        value = get_reward() if callable(get_reward) else None
        if inspect.isawaitable(value):
            value = asyncio.run(_awaited(value))
        return value, getattr(self.environment, "outcome", None)

    def pid(self) -> int:
        return os.getpid()


async def _awaited(value: Any) -> Any:
    return await value


def _unbuilt(cause: str) -> ExecutionError:
    return ExecutionError(f"environment on Ray: the environment cannot be built on the cluster: {cause} (install the "
                          "environment's package on every node)")


class RemoteEnvironment:
    """The local half of an environment on Ray (subclassed per environment class by
    :func:`remote_environment_class`): forwards ``reset`` and the tools to its actor."""

    _grpo_remote_factory: Any = None
    _grpo_remote_address: str = "auto"
    _grpo_remote_timeout: float | None = DEFAULT_TIMEOUT

    def __init__(self) -> None:
        self._actor: Any = None
        self._lost: str | None = None  # why this rollout's state is gone (until the next reset)
        self.outcome: str | None = None
        self._connection = -1  # the backend's connection the actor was made on

    def _backend(self) -> Any:
        from .ray_backend import get_ray_backend

        return get_ray_backend(self._grpo_remote_address)

    def _ray(self) -> Any:
        """Ray, connected as the backend connects (a lost connection: one reconnect); an actor made
        on an earlier connection is forgotten (it went with it)."""
        backend = self._backend()
        backend.connect()
        connection = backend.stats["connects"] + backend.stats["reconnects"]
        if connection != self._connection:
            self._actor, self._connection = None, connection
        import ray

        return ray

    def _connected(self) -> bool:
        """Whether this process is still on the connection the actor was made on (never a call on a
        handle of a connection given up: a bare ``ray.get`` would start a new local Ray)."""
        ray = sys.modules.get("ray")
        stats = self._backend().stats
        return (ray is not None and ray.is_initialized()
                and self._connection == stats["connects"] + stats["reconnects"])

    def _new_actor(self) -> None:
        ray = self._ray()
        self._drop()
        actor_class = ray.remote(num_cpus=ACTOR_CPUS, max_restarts=0, max_task_retries=0)(_Holder)
        self._actor = actor_class.remote(self._grpo_remote_factory, [p for p in sys.path if p and os.path.isdir(p)])
        try:  # the actor's start (a worker process, the environment built) is not charged to a call's deadline
            ray.get(self._actor.pid.remote(), timeout=STARTUP_TIMEOUT)
        except ray.exceptions.RayTaskError as exc:  # the environment could not be built there
            self._drop()
            cause = getattr(exc, "cause", None)
            raise _unbuilt(f"{type(cause).__name__}: {cause}" if cause else _first_line(exc)) from None
        except ray.exceptions.GetTimeoutError:
            self._drop()
            raise ExecutionError(f"environment on Ray: its actor did not start within {STARTUP_TIMEOUT:g} s (does a "
                                 f"node of the cluster have {ACTOR_CPUS:g} CPU free?)") from None
        except ray.exceptions.RayError as exc:  # its __init__ raised, its node died, the cluster went
            if getattr(exc, "actor_init_failed", False):  # the environment could not be built there
                self._drop()
                lines = [line for line in str(exc).splitlines() if line.strip()]
                raise _unbuilt(lines[-1].strip() if lines else type(exc).__name__) from None
            why = f"its actor could not start: {type(exc).__name__}: {_first_line(exc)}"
            lost = self._backend().cluster_lost(why)
            if lost is None:
                self._drop()
            self._actor = None
            raise ExecutionError(f"environment on Ray: {lost or why}") from None

    def _drop(self) -> None:
        actor, self._actor = self._actor, None
        if actor is not None and self._connected():
            import ray

            try:
                ray.kill(actor)
            except Exception:
                pass

    def _remote(self, method: str, *args: Any, what: str) -> Any:
        if self._actor is not None and not self._connected():  # the connection was given up since (a lost cluster)
            self._actor = None
            self._lost = "the connection to the Ray cluster its actor was on is gone; this rollout's state is lost"
        if self._actor is None:
            raise RolloutLost(f"environment on Ray: {self._lost or 'no rollout started (reset was not called)'}; "
                              f"{what} did not run")
        import ray

        try:
            return ray.get(getattr(self._actor, method).remote(*args), timeout=self._grpo_remote_timeout)
        except ray.exceptions.GetTimeoutError:
            why = f"{what} exceeded its {self._grpo_remote_timeout:g} s deadline"
            lost = self._backend().cluster_lost(why)
            if lost is None:
                self._drop()
            self._actor = None
            self._lost = (f"{why}; the environment's actor was killed and this rollout's state is lost" if lost is None
                          else f"{lost}; this rollout's state is lost")
            raise RolloutLost(f"environment on Ray: {self._lost}") from None
        except ray.exceptions.RayTaskError as exc:  # the environment's own error: re-raised as it is
            cause = getattr(exc, "cause", None)
            raise (cause if isinstance(cause, BaseException) else RuntimeError(str(exc))) from None
        except ray.exceptions.RayError as exc:  # the actor died, its node was lost, the cluster went
            self._actor = None
            why = f"the environment's actor was lost ({type(exc).__name__})"
            self._lost = f"{self._backend().cluster_lost(why) or why}; this rollout's state is lost"
            raise RolloutLost(f"environment on Ray: {self._lost}") from None

    def reset(self, **row: Any) -> Any:
        """The real ``reset``'s result; None (and a warning) when the rollout cannot start on the cluster
        (lost, or the actor cannot start): its tool calls are then errors and its reward None."""
        self._lost = None
        self.outcome = None
        try:
            return self._start(row)
        except (RolloutLost, ExecutionError) as exc:
            self._lost = f"the rollout could not start: {str(exc).removeprefix('environment on Ray: ')}"
            log.warning("environment on Ray: %s; its tool calls are errors and its reward None", self._lost)
            return None

    def _start(self, row: dict[str, Any]) -> Any:
        self._ray()
        if self._actor is None:
            self._new_actor()
        try:
            return self._remote("call", "reset", (), row, what="reset")
        except RolloutLost:
            if not self._connected():  # the cluster was lost: the next reset reconnects
                raise
        # the actor was lost since the last rollout (its node died) or its reset overran: one new actor
        self._lost = None
        self._new_actor()
        return self._remote("call", "reset", (), row, what="reset")

    def _grpo_remote_reward(self) -> Any:
        value, outcome = self._remote("reward", what="get_reward")
        self.outcome = outcome
        return value

    def _grpo_remote_pid(self) -> int:
        """The process id of the actor holding the real environment (for the tests)."""
        return int(self._remote("pid", what="pid"))

    def __del__(self) -> None:
        try:
            self._drop()
        except Exception:
            pass


def _reset(self: RemoteEnvironment, **row: Any) -> Any:
    return RemoteEnvironment.reset(self, **row)


def _forward(name: str, original: Any) -> Any:
    @functools.wraps(original)
    def tool(self: RemoteEnvironment, *args: Any, **kwargs: Any) -> Any:
        return self._remote("call", name, args, kwargs, what=f"tool {name}")

    return tool


_classes: dict[tuple[Any, ...], type] = {}


def remote_environment_class(name: str, cls: Any, factory: Any, address: str, timeout: float | None,
                             not_tools: tuple[str, ...] = ("reset", "get_reward")) -> type:
    """The stand-in class of environment ``name`` (registered class ``cls``) whose instances run
    ``factory()`` (a picklable zero-argument callable building the real environment) in a Ray actor;
    ``not_tools``: the methods that are no tools (the caller's :data:`grpo_rewards.environment.NOT_TOOLS`)."""
    if not inspect.isclass(cls):
        raise PluginError(f"environment {name}: execution backend ray needs an environment registered as a class "
                          f"(its tools are read from the class without building it); {cls!r} is not one")
    key = (name, cls, repr(factory), address, timeout)
    made = _classes.get(key)
    if made is not None:  # the same environment, parameters and place: one class (TRL's dedup by class holds)
        return made
    members: dict[str, Any] = {"__module__": cls.__module__, "__qualname__": cls.__qualname__,
                               "__doc__": cls.__doc__, "_grpo_remote_factory": factory,
                               "_grpo_remote_address": address, "_grpo_remote_timeout": timeout}
    for attr, function in inspect.getmembers(cls, predicate=inspect.isfunction):
        if attr.startswith("_") or attr == "get_reward":
            continue
        if attr in not_tools:  # reset: the stand-in's own, which starts the actor
            members[attr] = functools.wraps(function)(_reset)
        else:
            members[attr] = _forward(attr, function)
    made = _classes[key] = type(cls.__name__, (RemoteEnvironment,), members)
    return made


def remote_reward(environment: Any) -> tuple[bool, Any]:
    """``(True, value)`` for an environment on Ray (its actor's ``get_reward()``; its ``outcome`` label
    is set on the stand-in), else ``(False, None)``."""
    if isinstance(environment, RemoteEnvironment):
        return True, environment._grpo_remote_reward()
    return False, None
