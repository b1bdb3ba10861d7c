"""The ``math`` plugin: registers ``math.accuracy``, ``math.reasoning_accuracy`` and the math tasks."""

from __future__ import annotations

from typing import Any

import grpo_rewards

from .hacks import corpus
from .rewards import OPTIONS, Accuracy, ReasoningAccuracy
from .tasks import TASKS


@grpo_rewards.hookimpl
def register_rewards(register: grpo_rewards.RegisterReward) -> None:
    register(
        "accuracy",
        Accuracy,
        output_range=(0.0, 1.0),
        options=OPTIONS,
        hacks=corpus,
        example=r"completion '... \boxed{12}' with solution '12' -> 1.0",
    )
    register(
        "reasoning_accuracy",
        ReasoningAccuracy,
        output_range=(0.0, 1.0),
        options=OPTIONS,
        hacks=corpus,
        example=r"'<think>...</think> \boxed{12}' with solution '12' -> 1.0; no '</think>' -> 0.0",
    )


@grpo_rewards.hookimpl
def register_tasks(register: grpo_rewards.RegisterTask) -> None:
    for name, (factory, description) in TASKS.items():
        register(
            name,
            factory,
            description=description,
            columns=["prompt", "solution"],
            default_rewards=default_rewards(),
        )


def default_rewards() -> list[dict[str, Any]]:
    """The reward set the math tasks train with by default."""
    return [
        {"use": "math.accuracy", "weight": 1.0},
        {"use": "format.boxed", "weight": 0.2},
    ]
