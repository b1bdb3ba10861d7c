"""grpo-rewards-gym: reasoning-gym's procedural datasets as grpo-rewards tasks, scored by their own verifiers.

Discovered as the reward ``gym.accuracy`` and the tasks ``gym:<dataset>`` (one per reasoning-gym
dataset) and ``gym:mix``; ``accuracy`` is the same reward for a plain TRL script
(``GRPOTrainer(reward_funcs=[grpo_rewards_gym.accuracy])``, with a dataset built by
:func:`make_rows` or :func:`make_mix`). Importing this package does not import reasoning-gym.
"""

from importlib import metadata

from .catalog import dataset_names
from .rewards import ACCURACY
from .scoring import OUTCOMES, Accuracy, extract_answer
from .tasks import BROKEN, make_mix, make_rows

__version__ = metadata.version("grpo-rewards-gym")  # the one literal is in pyproject.toml

#: ``gym.accuracy`` as TRL calls it
accuracy = ACCURACY.reward()

__all__ = ["ACCURACY", "BROKEN", "OUTCOMES", "Accuracy", "accuracy", "dataset_names", "extract_answer", "make_mix",
           "make_rows"]
