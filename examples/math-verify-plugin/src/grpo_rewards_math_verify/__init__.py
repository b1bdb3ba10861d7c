"""math-verify as a grpo-rewards plugin: ``math_verify.accuracy`` pays what TRL's ``accuracy_reward`` pays.

An optional adapter, so that ``grpo-rewards compare data.jsonl --rewards math.accuracy --rewards
math_verify.accuracy`` shows, on your own data, where the two graders disagree. math-verify is a
dependency of this package only, never of grpo-rewards.
"""

from .plugin import MathVerifyAccuracy

__all__ = ["MathVerifyAccuracy"]
