"""The definitions of the judge rewards (registered by the plugin, exported by the package)."""

from __future__ import annotations

from grpo_rewards import RewardDefinition

from .hacks import corpus
from .pairwise import Pairwise
from .reward_model import RewardModel
from .rubric import Rubric

RUBRIC = RewardDefinition(
    "judge.rubric",
    Rubric,
    form="batch",
    output_range=(0.0, 1.0),
    hacks=corpus,
    example="{use: judge.rubric, with: {base_url: 'http://127.0.0.1:8000/v1', model: HuggingFaceTB/SmolLM2-135M-Instruct}}",
)

PAIRWISE = RewardDefinition(
    "judge.pairwise",
    Pairwise,
    form="batch",
    output_range=(0.0, 1.0),
    hacks=(),
    example="{use: judge.pairwise, with: {base_url: 'http://127.0.0.1:8000/v1', model: Qwen/Qwen2.5-7B-Instruct, "
            "mode: rank}}",
)

REWARD_MODEL = RewardDefinition(
    "judge.reward_model",
    RewardModel,
    form="batch",
    worker_safe=False,
    hacks=(),
    example="{use: judge.reward_model, with: {model: ./my-reward-model, device: 'cuda:1', normalise: sigmoid}}",
)

DEFINITIONS = (RUBRIC, PAIRWISE, REWARD_MODEL)
