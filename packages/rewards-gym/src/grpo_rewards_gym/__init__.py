"""grpo-rewards-gym: reasoning-gym's procedural datasets as grpo-rewards tasks, scored by their own verifiers.

Discovered as the reward ``gym.accuracy`` and the tasks ``gym:<dataset>`` (one per reasoning-gym
dataset) and ``gym:mix``; ``accuracy`` is the same reward for a plain TRL script
(``GRPOTrainer(reward_funcs=[grpo_rewards_gym.accuracy])``, with a dataset built by
:func:`make_rows` or :func:`make_mix`). Importing this package is light: each name is imported from
its module on first use, and reasoning-gym only when a dataset is built or an answer scored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grpo_rewards.lazy import lazy_exports

#: public name -> module that defines it
_EXPORTS = {
    "ACCURACY": "definitions",
    "BROKEN": "tasks",
    "OUTCOMES": "scoring",
    "Accuracy": "scoring",
    "dataset_names": "catalog",
    "extract_answer": "scoring",
    "make_mix": "tasks",
    "make_rows": "tasks",
    "rows_from": "tasks",
}
#: ``gym.accuracy`` as TRL calls it, built once on first use
_BUILT = {"accuracy": "definitions:make_accuracy"}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, built=_BUILT, modules=("codec",),
                                    distribution="grpo-rewards-gym")

__all__ = ["ACCURACY", "BROKEN", "OUTCOMES", "Accuracy", "accuracy", "dataset_names", "extract_answer", "make_mix",
           "make_rows", "rows_from"]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    __version__: str
    from grpo_rewards import Reward

    from . import codec as codec
    from .catalog import dataset_names
    from .definitions import ACCURACY
    from .scoring import OUTCOMES, Accuracy, extract_answer
    from .tasks import BROKEN, make_mix, make_rows, rows_from

    accuracy: Reward
