"""The instructions rewards, each defined once: what the plugin registers and what the package exports.

The scorers are named by reference, so registering the plugin (``grpo-rewards list``) imports no
checker code (nor NLTK or langdetect).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grpo_rewards import RewardDefinition

from .hacks import corpus

if TYPE_CHECKING:
    from grpo_rewards import Reward

#: Value for a completion with no readable text (``None``, a number, no assistant message).
INVALID_VALUE = 0.0
_COLUMNS = ["instruction_id_list", "kwargs"]

FOLLOWED = RewardDefinition(
    "instructions.followed", "grpo_rewards_instructions.rewards:Followed", form="batch", invalid_value=INVALID_VALUE,
    hacks=corpus, output_range=(0.0, 1.0),
    description="The fraction of the row's instruction constraints (IFEval, IFBench) the reply satisfies, strict or loose.",
    example="{use: instructions.followed, with: {mode: loose}}")
ALL_FOLLOWED = RewardDefinition(
    "instructions.all_followed", "grpo_rewards_instructions.rewards:AllFollowed", form="batch",
    invalid_value=INVALID_VALUE, hacks=corpus, output_range=(0.0, 1.0),
    description="1.0 when the reply satisfies every instruction constraint (IFEval, IFBench) of its row, strict or loose.",
    example="{use: instructions.all_followed, weight: 0.5}")

#: Every instructions reward, in the order the plugin registers them.
DEFINITIONS = (FOLLOWED, ALL_FOLLOWED)


def make_followed(*, metric: str | None = None, **params: Any) -> Reward:
    """``instructions.followed`` with parameters (see :class:`~grpo_rewards_instructions.rewards.Followed`);
    ``metric`` is the name TRL logs it under."""
    return FOLLOWED.reward(metric=metric, **params)


def make_all_followed(*, metric: str | None = None, **params: Any) -> Reward:
    """``instructions.all_followed`` with parameters (see :class:`~grpo_rewards_instructions.rewards.AllFollowed`)."""
    return ALL_FOLLOWED.reward(metric=metric, **params)
