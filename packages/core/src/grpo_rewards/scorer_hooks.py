"""A scorer's optional methods and attributes, read in this one place.

What each one means, and what happens without it, is the contract in
:class:`grpo_rewards.protocol.Scorer`'s docstring (:data:`~grpo_rewards.protocol.SCORER_METHODS`,
:data:`~grpo_rewards.protocol.SCORER_ATTRIBUTES`). Every other module of the core asks here, never
by ``getattr`` of its own (a test checks), so this file lists everything the core reads from a scorer
but its signature (:mod:`grpo_rewards.signatures`: its parameters, its call form, whether a batch
scorer declares ``reward_options``).
The functions take a scorer, its registered class, or a callable wrapping one (a worker's call):
whatever carries the method.

>>> class Sandboxed:
...     @staticmethod
...     def describe_runtime():
...         return "sandbox: none needed"
>>> runtime_note(Sandboxed), runtime_note(len)
('sandbox: none needed', None)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _method(obj: Any, name: str) -> Callable[..., Any] | None:
    found = getattr(obj, name, None)
    return found if callable(found) else None


def quick(scorer: Any) -> Callable[..., Any] | None:
    """The scorer's ``quick(text, **row)``, or None when it has none."""
    return _method(scorer, "quick")


def warm_up(obj: Any) -> None:
    """Call ``obj.warmup()`` when it has one (its exception propagates: the load failed)."""
    warmup = _method(obj, "warmup")
    if warmup is not None:
        warmup()


def explainer(scorer: Any) -> Callable[..., Any] | None:
    """The scorer's ``explain(completion, **row)``, or None when it has none."""
    return _method(scorer, "explain")


def runtime_note(obj: Any) -> str | None:
    """What ``obj`` (a scorer, its class, or a built reward's implementation) says it runs on, or None."""
    describe = _method(obj, "describe_runtime")
    if describe is None:
        return None
    try:
        return str(describe())
    except Exception as exc:  # a description must never stop a command
        return f"unknown ({type(exc).__name__}: {exc})"


def row_problems(obj: Any, rows: Any) -> list[str]:
    """The problems ``obj.check_rows(rows)`` reports (none when it has no such method)."""
    check = _method(obj, "check_rows")
    return [str(p) for p in check(rows)] if check is not None else []


def own_columns(built: Any) -> tuple[str, ...] | None:
    """The dataset columns a built scorer says it reads (its ``columns``), or None when it does not say."""
    columns = getattr(built, "columns", None)
    if not isinstance(columns, (tuple, list)):
        return None
    return tuple(c for c in columns if isinstance(c, str))


def own_units(built: Any) -> str | None:
    """What a built scorer says its lengths are measured in (its ``units``), or None."""
    units = getattr(built, "units", None)
    return units if isinstance(units, str) else None


def column_attributes(built: Any) -> dict[str, Any]:
    """A built scorer's own ``<param>_column`` attributes (``Accuracy().solution_column``)."""
    return {k: v for k, v in getattr(built, "__dict__", {}).items() if k.endswith("_column")}
