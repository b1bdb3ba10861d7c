"""The definition of ``gym.accuracy`` (registered by the plugin, exported as ``grpo_rewards_gym.accuracy``).

The scorer is named by reference, so registering the plugin imports none of the scoring code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grpo_rewards import RewardDefinition, RewardOptions

from .hacks import corpus

if TYPE_CHECKING:  # the reward module (and its execution layer) is imported when a reward is built
    from grpo_rewards import Reward

#: Each sample runs in a worker process under a 30 s deadline (scored 0.0 when it overruns): a few
#: reasoning-gym scorers simulate puzzles, the first sample of a dataset in a worker rebuilds it, and the
#: scorers that evaluate run in a sandbox that imports reasoning-gym per sample (3 s of CPU).
OPTIONS = RewardOptions(timeout=30.0, timeout_value=0.0, invalid_value=0.0, max_chars=100_000, too_large_value=0.0)

COLUMNS = ("gym_dataset", "gym_config", "gym_entry")

ACCURACY = RewardDefinition(
    "gym.accuracy",
    "grpo_rewards_gym.scoring:Accuracy",
    columns=list(COLUMNS),
    output_range=(0.0, 1.0),
    options=OPTIONS,
    hacks=corpus,
    example="{use: gym.accuracy} on rows of a gym:<dataset> task; '<answer>42</answer>' with gold 42 -> 1.0",
)


def make_accuracy() -> Reward:
    """``gym.accuracy`` as TRL calls it (what ``grpo_rewards_gym.accuracy`` is)."""
    return ACCURACY.reward()
