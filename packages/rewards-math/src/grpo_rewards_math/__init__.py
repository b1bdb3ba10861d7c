"""grpo-rewards-math: verified math rewards for GRPO with TRL.

``accuracy`` and ``reasoning_accuracy`` are TRL reward functions (``GRPOTrainer(reward_funcs=
[grpo_rewards_math.accuracy])``); the same rewards are discovered as ``math.accuracy`` and
``math.reasoning_accuracy``, and the tasks ``math:arithmetic``, ``math:fractions`` and
``math:linear``. Importing this package is light: sympy is imported only when answers are compared.
"""

from importlib import metadata

from .extract import Extraction, extract_answer, extract_gold, find_answer
from .rewards import (
    OUTCOMES,
    Accuracy,
    ReasoningAccuracy,
    accuracy,
    make_accuracy,
    make_reasoning_accuracy,
    reasoning_accuracy,
)

__version__ = metadata.version("grpo-rewards-math")  # the one literal is in pyproject.toml

__all__ = [
    "OUTCOMES",
    "Accuracy",
    "Extraction",
    "ReasoningAccuracy",
    "accuracy",
    "extract_answer",
    "extract_gold",
    "find_answer",
    "make_accuracy",
    "make_reasoning_accuracy",
    "reasoning_accuracy",
]
