"""The ``math`` plugin: registers ``math.accuracy``, ``math.reasoning_accuracy`` (:mod:`.definitions`) and the math tasks.

Registration imports no scorer code: the rewards are named by reference and loaded on first use.
"""

from __future__ import annotations

from typing import Any

import grpo_rewards

from .definitions import DEFINITIONS
from .tasks import TASKS


@grpo_rewards.hookimpl
def register_rewards(register: grpo_rewards.RegisterReward) -> None:
    for definition in DEFINITIONS:
        definition.register(register)


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
    r"""The reward set the math tasks train with by default.

    The tasks' prompts ask for the answer in ``\boxed{}``, so the accuracy is strict (only a boxed
    answer earns it), as in the embedded default of ``grpo-rewards train``: a lenient accuracy pays
    unboxed answers, and a run then learns to drop the box that ``format.boxed`` asks for.
    """
    return [
        {"use": "math.accuracy", "weight": 1.0, "with": {"answer_format": "boxed"}},
        {"use": "format.boxed", "weight": 0.2},
    ]
