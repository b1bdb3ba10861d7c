"""The ``tools`` plugin: registers the tool-call rewards (:mod:`.definitions`), and the environments and their
tasks (:mod:`.environments.registration`), with grpo-rewards (entry point ``tools``)."""

from __future__ import annotations

from grpo_rewards import RegisterEnvironment, RegisterReward, RegisterTask, hookimpl

from .definitions import DEFINITIONS
from .environments import registration


@hookimpl
def register_rewards(register: RegisterReward) -> None:
    for definition in DEFINITIONS:
        definition.register(register)


@hookimpl
def register_environments(register: RegisterEnvironment) -> None:
    registration.register_environments(register)


@hookimpl
def register_tasks(register: RegisterTask) -> None:
    registration.register_tasks(register)
