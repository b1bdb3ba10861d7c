"""The ``length`` plugin: registers the length rewards (:mod:`.definitions`) with grpo-rewards."""

from __future__ import annotations

import grpo_rewards

from .definitions import DEFINITIONS


@grpo_rewards.hookimpl
def register_rewards(register: grpo_rewards.RegisterReward) -> None:
    for definition in DEFINITIONS:
        definition.register(register)
