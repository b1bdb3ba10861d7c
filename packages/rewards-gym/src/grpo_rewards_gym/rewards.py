"""The definition of ``gym.accuracy`` (registered by the plugin, exported as ``grpo_rewards_gym.accuracy``)."""

from __future__ import annotations

from grpo_rewards import RewardDefinition

from .hacks import corpus
from .scoring import COLUMNS, OPTIONS, Accuracy

ACCURACY = RewardDefinition(
    "gym.accuracy",
    Accuracy,
    columns=list(COLUMNS),
    output_range=(0.0, 1.0),
    options=OPTIONS,
    hacks=corpus,
    example="{use: gym.accuracy} on rows of a gym:<dataset> task; '<answer>42</answer>' with gold 42 -> 1.0",
)
