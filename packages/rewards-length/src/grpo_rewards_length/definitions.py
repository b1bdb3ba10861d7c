"""The length rewards, each defined once: what the plugin registers and what the package exports come from here.

Each scorer is named by reference (``"grpo_rewards_length.target_length:TargetLength"``), so registering
the plugin (``grpo-rewards list``) imports none of the scorers; they are imported when a reward is
first built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grpo_rewards import RewardDefinition

from .hacks import corpus

if TYPE_CHECKING:  # the reward module (and its execution layer) is imported when a reward is built
    from grpo_rewards import Reward

TARGET = RewardDefinition(
    "length.target", "grpo_rewards_length.target_length:TargetLength", hacks=corpus, units="chars",
    description="Closeness to a target length: -|L - target| beyond a tolerance, or normalised to [-1, 0].",
    example="length.target with {target: 200, unit: words, normalise: true}")
SOFT_OVERLONG = RewardDefinition(
    "length.soft_overlong", "grpo_rewards_length.overlong:SoftOverlong", hacks=corpus, units="tokens", output_range=(-1.0, 0.0),
    description="DAPO soft overlong punishment: 0, then linear to -1 over the last `buffer` before max_length.",
    example="length.soft_overlong with {max_length: 1024, buffer: 256}")
COSINE = RewardDefinition(
    "length.cosine", "grpo_rewards_length.cosine_length:CosineLength", hacks=corpus, units="tokens", output_range=(-1.0, 1.0),
    description="Cosine length scaling by correctness: short correct best, short wrong worst; clamped.",
    example="length.cosine with {max_length: 1024}, inputs: {correct: math.accuracy}")
GROUP_RELATIVE = RewardDefinition(
    "length.group_relative", "grpo_rewards_length.group:GroupRelativeLength", hacks=corpus, form="batch", units="tokens", output_range=(-0.5, 0.5),
    description="Kimi k1.5 group-relative length: 0.5 - (L - min)/(max - min) per prompt group; wrong capped at 0.",
    example="length.group_relative, inputs: {correct: math.accuracy}")
TRUNCATED = RewardDefinition(
    "length.truncated", "grpo_rewards_length.truncation:Truncated", hacks=corpus, units="tokens",
    description="Penalty (or multiplier on another reward) for completions cut off at the generation limit.",
    example="length.truncated with {max_length: 1024, eos_token_ids: [2]}")

#: Every length reward, in the order the plugin registers them.
DEFINITIONS = (TARGET, SOFT_OVERLONG, COSINE, GROUP_RELATIVE, TRUNCATED)


def make_target(*, metric: str | None = None, **params: Any) -> Reward:
    """``length.target`` with parameters (see :class:`~grpo_rewards_length.target_length.TargetLength`);
    ``metric`` is the name TRL logs it under."""
    return TARGET.reward(metric=metric, **params)


def make_soft_overlong(*, metric: str | None = None, **params: Any) -> Reward:
    """``length.soft_overlong`` with parameters (see :class:`~grpo_rewards_length.overlong.SoftOverlong`)."""
    return SOFT_OVERLONG.reward(metric=metric, **params)


def make_cosine(*, correctness: Any = None, metric: str | None = None, **params: Any) -> Reward:
    """``length.cosine`` with parameters (see :class:`~grpo_rewards_length.cosine_length.CosineLength`).

    ``correctness``: a reward (e.g. ``grpo_rewards_math.accuracy``) whose values fill the
    correctness column; the same reward object listed in ``reward_funcs`` is computed once per batch.
    """
    column = params.get("correct_column", "correct")
    inputs = {column: correctness} if correctness is not None else None
    return COSINE.reward(metric=metric, inputs=inputs, **params)


def make_group_relative(*, correctness: Any = None, metric: str | None = None, **params: Any) -> Reward:
    """``length.group_relative`` with parameters (see :class:`~grpo_rewards_length.group.GroupRelativeLength`); batch form."""
    column = params.get("correct_column", "correct")
    inputs = {column: correctness} if correctness is not None and column is not None else None
    return GROUP_RELATIVE.reward(metric=metric, inputs=inputs, **params)


def make_truncated(*, base: Any = None, metric: str | None = None, **params: Any) -> Reward:
    """``length.truncated`` with parameters (see :class:`~grpo_rewards_length.truncation.Truncated`).

    ``base``: a reward whose values fill ``base_column`` (default ``"base"``), making this a
    multiplier on that reward.
    """
    if base is not None:
        params.setdefault("base_column", "base")
    inputs = {str(params["base_column"]): base} if base is not None else None
    return TRUNCATED.reward(metric=metric, inputs=inputs, **params)
