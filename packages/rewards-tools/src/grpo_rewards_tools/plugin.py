"""The ``tools`` plugin: registers the tool-call rewards (:mod:`.definitions`) with grpo-rewards (entry point ``tools``)."""

from __future__ import annotations

from grpo_rewards import RegisterReward, hookimpl

from .definitions import DEFINITIONS


@hookimpl
def register_rewards(register: RegisterReward) -> None:
    for definition in DEFINITIONS:
        definition.register(register)
