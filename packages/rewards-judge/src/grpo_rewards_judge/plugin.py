"""The ``judge`` plugin: registers ``judge.rubric``, ``judge.pairwise`` and ``judge.reward_model``.

Registration imports neither the HTTP client nor torch: ``grpo-rewards list`` stays fast.
"""

from __future__ import annotations

import grpo_rewards

from .definitions import DEFINITIONS


@grpo_rewards.hookimpl
def register_rewards(register: grpo_rewards.RegisterReward) -> None:
    for definition in DEFINITIONS:
        definition.register(register)
