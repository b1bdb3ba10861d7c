"""grpo-rewards-judge: model-based rewards for GRPO with TRL.

Discovered as ``judge.rubric`` (an LLM judge on any OpenAI-compatible server grades each
completion against a rubric), ``judge.pairwise`` (the completions of one prompt judged together)
and ``judge.reward_model`` (a sequence-classification reward model on a device of its own). Each
needs its parameters (the server and model, or the reward model), so the package exports
factories rather than ready rewards::

    from grpo_rewards_judge import make_rubric
    judge = make_rubric(base_url="http://127.0.0.1:8000/v1", model="HuggingFaceTB/SmolLM2-135M-Instruct")
    GRPOTrainer(..., reward_funcs=[judge])       # judge.__name__ == "judge.rubric"

Importing this package is light: each name is imported from its module on first use, httpx when a
judge is called and torch when a reward model is loaded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grpo_rewards.lazy import lazy_exports

#: public name -> module that defines it
_EXPORTS = {
    "ChatClient": "client",
    "Embeddings": "client",
    "PAIRWISE": "definitions",
    "REWARD_MODEL": "definitions",
    "RUBRIC": "definitions",
    "make_pairwise": "definitions",
    "make_reward_model": "definitions",
    "make_rubric": "definitions",
    "Pairwise": "pairwise",
    "ScoreFormat": "parse",
    "RewardModel": "reward_model",
    "Rubric": "rubric",
    "DEFAULT_TEMPLATES": "templates",
    "PAIRWISE_TEMPLATE": "templates",
    "SYSTEM": "templates",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, distribution="grpo-rewards-judge")

__all__ = ["DEFAULT_TEMPLATES", "PAIRWISE", "PAIRWISE_TEMPLATE", "REWARD_MODEL", "RUBRIC", "SYSTEM", "ChatClient",
           "Embeddings", "Pairwise", "RewardModel", "Rubric", "ScoreFormat", "make_pairwise", "make_reward_model",
           "make_rubric"]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    __version__: str
    from .client import ChatClient, Embeddings
    from .definitions import PAIRWISE, REWARD_MODEL, RUBRIC, make_pairwise, make_reward_model, make_rubric
    from .pairwise import Pairwise
    from .parse import ScoreFormat
    from .reward_model import RewardModel
    from .rubric import Rubric
    from .templates import DEFAULT_TEMPLATES, PAIRWISE_TEMPLATE, SYSTEM
