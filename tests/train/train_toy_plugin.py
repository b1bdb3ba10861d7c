"""A plugin for the training tests: rewards and a task with exactly known outputs.

Registered in-process with ``plugins.add(module, "toy")``; the torchrun test imports it
in each rank the same way.
"""

from __future__ import annotations

import os
from typing import Any

import grpo_rewards


def digits(text: str, **row: Any) -> float:
    """1.0 when the completion contains a digit, else 0.0."""
    return 1.0 if any(c.isdigit() for c in text) else 0.0


def short(text: str, *, limit: int = 40, **row: Any) -> float:
    """1.0 when the completion has at most ``limit`` characters, else 0.0."""
    return 1.0 if len(text) <= limit else 0.0


def rank(prompts: list, completions: list, completion_ids: Any = None, **kwargs: Any) -> list[float]:
    """The global rank of the process that scored the sample (``RANK``), for every sample."""
    return [float(os.environ.get("RANK", "0"))] * len(completions)


def echo_k(text: str, *, k: int, **row: Any) -> float:
    """The row's ``k`` column, as a float."""
    return float(k)


class FailFrom:
    """Raises once the trainer reaches global step ``step``; 0.0 before."""

    def __init__(self, step: int = 1) -> None:
        self.step = step

    def __call__(self, prompts: list, completions: list, completion_ids: Any = None, **kwargs: Any) -> list[float]:
        state = kwargs.get("trainer_state")
        if state is not None and state.global_step >= self.step:
            raise RuntimeError(f"boom at step {state.global_step}")
        return [0.0] * len(completions)


def make_count(n: int, seed: int = 0, start: int = 1) -> list[dict[str, Any]]:
    """``n`` prompts "Count from K:" with the column ``k`` (K = start, start+1, ...)."""
    return [{"prompt": f"Count from {start + i}:", "k": start + i} for i in range(n)]


@grpo_rewards.hookimpl
def register_rewards(register: Any) -> None:
    register("digits", digits, output_range=(0.0, 1.0))
    register("short", short, output_range=(0.0, 1.0))
    register("rank", rank, form="batch")
    register("echo_k", echo_k)
    register("fail_from", FailFrom, form="batch")


@grpo_rewards.hookimpl
def register_tasks(register: Any) -> None:
    register("count", make_count, columns=["prompt", "k"],
             default_rewards=[{"use": "toy.digits", "weight": 1.0}])
