"""The ``keywords`` plugin: registers the keyword rewards with grpo-rewards."""

from __future__ import annotations

import grpo_rewards

from . import COLUMN_COVERAGE, COVERAGE


@grpo_rewards.hookimpl
def register_rewards(register: grpo_rewards.RegisterReward) -> None:
    COVERAGE.register(register)          # the definitions the module's TRL exports are built from
    COLUMN_COVERAGE.register(register)
