"""grpo-rewards-judge: model-based rewards for GRPO with TRL.

Discovered as ``judge.rubric`` (an LLM judge on any OpenAI-compatible server grades each
completion against a rubric), ``judge.pairwise`` (the completions of one prompt judged together)
and ``judge.reward_model`` (a sequence-classification reward model on a device of its own). Each
needs its parameters (the server and model, or the reward model), so the package exports
factories rather than ready rewards::

    from grpo_rewards_judge import make_rubric
    judge = make_rubric(base_url="http://127.0.0.1:8000/v1", model="HuggingFaceTB/SmolLM2-135M-Instruct")
    GRPOTrainer(..., reward_funcs=[judge])       # judge.__name__ == "judge.rubric"

Importing this package imports neither httpx nor torch.
"""

from importlib import metadata
from typing import Any

from .definitions import PAIRWISE, REWARD_MODEL, RUBRIC
from .pairwise import Pairwise
from .parse import ScoreFormat
from .reward_model import RewardModel
from .rubric import Rubric
from .templates import DEFAULT_TEMPLATES, PAIRWISE_TEMPLATE, SYSTEM

__version__ = metadata.version("grpo-rewards-judge")  # the one literal is in pyproject.toml


def make_rubric(**params: Any) -> Any:
    """``judge.rubric`` as TRL calls it, with ``params`` (checked like a reward-set entry's)."""
    return RUBRIC.reward(**params)


def make_pairwise(**params: Any) -> Any:
    """``judge.pairwise`` as TRL calls it, with ``params``."""
    return PAIRWISE.reward(**params)


def make_reward_model(**params: Any) -> Any:
    """``judge.reward_model`` as TRL calls it, with ``params``."""
    return REWARD_MODEL.reward(**params)


__all__ = ["DEFAULT_TEMPLATES", "PAIRWISE", "PAIRWISE_TEMPLATE", "REWARD_MODEL", "RUBRIC", "SYSTEM", "Pairwise",
           "RewardModel", "Rubric", "ScoreFormat", "make_pairwise", "make_reward_model", "make_rubric"]
