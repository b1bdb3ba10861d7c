"""The math rewards, each defined once: what the plugin registers and what the package exports come from here.

Each scorer is named by reference (``"grpo_rewards_math.correctness:Accuracy"``), so registering the
plugin (``grpo-rewards list``) imports none of the answer extraction, parsing or sympy code; it is
imported when a reward is first built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grpo_rewards import RewardDefinition, RewardOptions

from .hacks import corpus

if TYPE_CHECKING:  # the reward module (and its execution layer) is imported when a reward is built
    from grpo_rewards import Reward

#: How the core runs the math rewards unless a reward-set entry says otherwise: the symbolic
#: check of each undecided sample in a worker, killed after 1 s, and then scored 0.0.
OPTIONS = RewardOptions(timeout=1.0, timeout_value=0.0, invalid_value=0.0)

ACCURACY = RewardDefinition(
    "math.accuracy", "grpo_rewards_math.correctness:Accuracy", output_range=(0.0, 1.0), options=OPTIONS, hacks=corpus,
    example=r"completion '... \boxed{12}' with solution '12' -> 1.0")
REASONING_ACCURACY = RewardDefinition(
    "math.reasoning_accuracy", "grpo_rewards_math.correctness:ReasoningAccuracy", output_range=(0.0, 1.0),
    options=OPTIONS, hacks=corpus,
    example=r"'<think>...</think> \boxed{12}' with solution '12' -> 1.0; no '</think>' -> 0.0")

#: Every math reward, in the order the plugin registers them.
DEFINITIONS = (ACCURACY, REASONING_ACCURACY)


def make_accuracy(metric: str | None = None, options: RewardOptions | dict[str, Any] | None = None,
                  **params: Any) -> Reward:
    r"""A ``math.accuracy`` reward with parameters, ready for ``GRPOTrainer(reward_funcs=[...])``.

    ``metric`` is the name TRL logs it under; give each differently configured copy its own.
    ``options`` (a :class:`grpo_rewards.RewardOptions` or a mapping) go over :data:`OPTIONS`.

    >>> reward = make_accuracy(metric="math_accuracy_strict", fallback_last_number=False, options={"timeout": 2.0})
    >>> reward(prompts=["2+2?", "2+2?"], completions=["It is 4", r"\boxed{4}"], solution=["4", "4"])
    [0.0, 1.0]
    >>> reward.__name__, reward.options.timeout, sorted(reward.stats.items())
    ('math_accuracy_strict', 2.0, [('correct', 1), ('no_answer', 1)])
    """
    return ACCURACY.reward(metric=metric, options=options, **params)


def make_reasoning_accuracy(metric: str | None = None, options: RewardOptions | dict[str, Any] | None = None,
                            **params: Any) -> Reward:
    """A ``math.reasoning_accuracy`` reward with parameters (see :func:`make_accuracy`)."""
    return REASONING_ACCURACY.reward(metric=metric, options=options, **params)
