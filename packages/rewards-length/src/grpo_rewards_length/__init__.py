"""grpo-rewards-length: length rewards for GRPO with TRL.

Each reward is a ready-made callable with default parameters, usable as it is in
``GRPOTrainer(reward_funcs=[grpo_rewards_length.soft_overlong])`` or
``trl grpo --reward_funcs grpo_rewards_length.soft_overlong``, and a factory taking parameters
(``make_soft_overlong(max_length=1024, buffer=256)``). The same rewards are registered under the
``length`` namespace for ``grpo_rewards.load_reward_set`` and the ``grpo-rewards`` command.

>>> import grpo_rewards_length
>>> grpo_rewards_length.soft_overlong.__name__
'length.soft_overlong'
"""

from __future__ import annotations

from importlib import metadata
from typing import Any

from grpo_rewards import Reward

from .cosine import CosineLength
from .definitions import COSINE, GROUP_RELATIVE, SOFT_OVERLONG, TARGET, TRUNCATED
from .group import GroupRelativeLength
from .overlong import DEFAULT_MAX_LENGTH, SoftOverlong
from .target import TargetLength
from .truncated import Truncated

__version__ = metadata.version("grpo-rewards-length")  # the one literal is in pyproject.toml


def make_target(*, metric: str | None = None, **params: Any) -> Reward:
    """``length.target`` with parameters (see :class:`TargetLength`); ``metric`` is the name TRL logs it under."""
    return TARGET.reward(metric=metric, **params)


def make_soft_overlong(*, metric: str | None = None, **params: Any) -> Reward:
    """``length.soft_overlong`` with parameters (see :class:`SoftOverlong`)."""
    return SOFT_OVERLONG.reward(metric=metric, **params)


def make_cosine(*, correctness: Any = None, metric: str | None = None, **params: Any) -> Reward:
    """``length.cosine`` with parameters (see :class:`CosineLength`).

    ``correctness``: a reward (e.g. ``grpo_rewards_math.accuracy``) whose values fill the
    correctness column; the same reward object listed in ``reward_funcs`` is computed once per batch.
    """
    column = params.get("correct_column", "correct")
    inputs = {column: correctness} if correctness is not None else None
    return COSINE.reward(metric=metric, inputs=inputs, **params)


def make_group_relative(*, correctness: Any = None, metric: str | None = None, **params: Any) -> Reward:
    """``length.group_relative`` with parameters (see :class:`GroupRelativeLength`); batch form."""
    column = params.get("correct_column", "correct")
    inputs = {column: correctness} if correctness is not None and column is not None else None
    return GROUP_RELATIVE.reward(metric=metric, inputs=inputs, **params)


def make_truncated(*, base: Any = None, metric: str | None = None, **params: Any) -> Reward:
    """``length.truncated`` with parameters (see :class:`Truncated`).

    ``base``: a reward whose values fill ``base_column`` (default ``"base"``), making this a
    multiplier on that reward.
    """
    if base is not None:
        params.setdefault("base_column", "base")
    inputs = {str(params["base_column"]): base} if base is not None else None
    return TRUNCATED.reward(metric=metric, inputs=inputs, **params)


#: Ready-made rewards with default parameters.
target = make_target()
soft_overlong = make_soft_overlong()
cosine = make_cosine()
group_relative = make_group_relative()
truncated = make_truncated()

__all__ = [
    "DEFAULT_MAX_LENGTH",
    "CosineLength",
    "GroupRelativeLength",
    "SoftOverlong",
    "TargetLength",
    "Truncated",
    "cosine",
    "group_relative",
    "make_cosine",
    "make_group_relative",
    "make_soft_overlong",
    "make_target",
    "make_truncated",
    "soft_overlong",
    "target",
    "truncated",
]
