"""The ``instructions`` plugin: registers ``instructions.followed``, ``instructions.all_followed``
(:mod:`.definitions`) and the task ``instructions:synthetic``; it imports no checker code."""

from __future__ import annotations

from typing import Any

from grpo_rewards import RegisterReward, RegisterTask, hookimpl

from .definitions import DEFINITIONS
from .tasks import make_synthetic  # standard library only: cheap to import


@hookimpl
def register_rewards(register: RegisterReward) -> None:
    for definition in DEFINITIONS:
        definition.register(register)


@hookimpl
def register_tasks(register: RegisterTask) -> None:
    register("synthetic", make_synthetic,
             description="seeded requests, each with one to three compatible IFEval constraints",
             columns=["prompt", "instruction_id_list", "kwargs"], default_rewards=default_rewards())


def default_rewards() -> list[dict[str, Any]]:
    """The reward set ``instructions:synthetic`` trains with by default: the share of constraints
    followed, and a bonus when all are."""
    return [
        {"use": "instructions.followed", "weight": 1.0},
        {"use": "instructions.all_followed", "weight": 0.5},
    ]
