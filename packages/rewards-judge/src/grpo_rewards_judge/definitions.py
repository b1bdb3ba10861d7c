"""The definitions of the judge rewards (registered by the plugin, exported by the package).

Each scorer is named by reference (``"grpo_rewards_judge.rubric:Rubric"``), so registering the
plugin (``grpo-rewards list``) imports none of the judging code; it is imported when a reward is
first built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grpo_rewards import RewardDefinition

from .hacks import corpus

if TYPE_CHECKING:  # the reward module (and its execution layer) is imported when a reward is built
    from grpo_rewards import Reward

RUBRIC = RewardDefinition(
    "judge.rubric",
    "grpo_rewards_judge.rubric:Rubric",
    form="batch",
    output_range=(0.0, 1.0),
    hacks=corpus,
    example="{use: judge.rubric, with: {base_url: 'http://127.0.0.1:8000/v1', model: HuggingFaceTB/SmolLM2-135M-Instruct}}",
)

PAIRWISE = RewardDefinition(
    "judge.pairwise",
    "grpo_rewards_judge.pairwise:Pairwise",
    form="batch",
    output_range=(0.0, 1.0),
    hacks=(),
    example="{use: judge.pairwise, with: {base_url: 'http://127.0.0.1:8000/v1', model: Qwen/Qwen2.5-7B-Instruct, "
            "mode: rank}}",
)

REWARD_MODEL = RewardDefinition(
    "judge.reward_model",
    "grpo_rewards_judge.reward_model:RewardModel",
    form="batch",
    worker_safe=False,
    hacks=(),
    example="{use: judge.reward_model, with: {model: ./my-reward-model, device: 'cuda:1', normalise: sigmoid}}",
)

DEFINITIONS = (RUBRIC, PAIRWISE, REWARD_MODEL)


def make_rubric(**params: Any) -> Reward:
    """``judge.rubric`` as TRL calls it, with ``params`` (checked like a reward-set entry's)."""
    return RUBRIC.reward(**params)


def make_pairwise(**params: Any) -> Reward:
    """``judge.pairwise`` as TRL calls it, with ``params``."""
    return PAIRWISE.reward(**params)


def make_reward_model(**params: Any) -> Reward:
    """``judge.reward_model`` as TRL calls it, with ``params``."""
    return REWARD_MODEL.reward(**params)
