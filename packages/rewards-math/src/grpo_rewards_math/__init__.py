"""grpo-rewards-math: verified math rewards for GRPO with TRL.

``accuracy`` and ``reasoning_accuracy`` are TRL reward functions (``GRPOTrainer(reward_funcs=
[grpo_rewards_math.accuracy])``); the same rewards are discovered as ``math.accuracy`` and
``math.reasoning_accuracy``, and the tasks ``math:arithmetic``, ``math:fractions`` and
``math:linear``. Importing this package is light: each name below is imported from its module on
first use (so the plugin's registration loads no reward code), and sympy only when answers are
compared.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grpo_rewards.lazy import lazy_exports

#: public name -> module that defines it
_EXPORTS = {
    "Extraction": "extract",
    "extract_answer": "extract",
    "extract_gold": "extract",
    "find_answer": "extract",
    "OUTCOMES": "correctness",
    "Accuracy": "correctness",
    "ReasoningAccuracy": "correctness",
    "make_accuracy": "definitions",
    "make_reasoning_accuracy": "definitions",
}

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


#: the ready-made rewards, built once on first use
_BUILT = {"accuracy": "definitions:make_accuracy", "reasoning_accuracy": "definitions:make_reasoning_accuracy"}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, built=_BUILT, distribution="grpo-rewards-math")


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    __version__: str
    from grpo_rewards import Reward

    from .correctness import OUTCOMES, Accuracy, ReasoningAccuracy
    from .definitions import make_accuracy, make_reasoning_accuracy
    from .extract import Extraction, extract_answer, extract_gold, find_answer

    accuracy: Reward
    reasoning_accuracy: Reward
