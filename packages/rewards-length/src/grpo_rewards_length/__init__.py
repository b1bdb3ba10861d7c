"""grpo-rewards-length: length rewards for GRPO with TRL.

Each reward is a ready-made callable with default parameters, usable as it is in
``GRPOTrainer(reward_funcs=[grpo_rewards_length.soft_overlong])`` or
``trl grpo --reward_funcs grpo_rewards_length.soft_overlong``, and a factory taking parameters
(``make_soft_overlong(max_length=1024, buffer=256)``). The same rewards are registered under the
``length`` namespace for ``grpo_rewards.load_reward_set`` and the ``grpo-rewards`` command.
Importing this package is light: each name below is imported from its module on first use (so the
plugin's registration loads no scorer code).

>>> import grpo_rewards_length
>>> grpo_rewards_length.soft_overlong.__name__
'length.soft_overlong'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grpo_rewards.lazy import lazy_exports

#: public name -> module that defines it
_EXPORTS = {
    "CosineLength": "cosine_length",
    "GroupRelativeLength": "group",
    "DEFAULT_MAX_LENGTH": "overlong",
    "SoftOverlong": "overlong",
    "TargetLength": "target_length",
    "Truncated": "truncation",
    "make_cosine": "definitions",
    "make_group_relative": "definitions",
    "make_soft_overlong": "definitions",
    "make_target": "definitions",
    "make_truncated": "definitions",
}
#: the ready-made rewards with default parameters, built once on first use
_BUILT = {
    "target": "definitions:make_target",
    "soft_overlong": "definitions:make_soft_overlong",
    "cosine": "definitions:make_cosine",
    "group_relative": "definitions:make_group_relative",
    "truncated": "definitions:make_truncated",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, built=_BUILT, distribution="grpo-rewards-length")

__all__ = [
    "DEFAULT_MAX_LENGTH",
    "CosineLength",
    "GroupRelativeLength",
    "SoftOverlong",
    "TargetLength",
    "Truncated",
    "cosine",
    "group_relative",
    "make_cosine",
    "make_group_relative",
    "make_soft_overlong",
    "make_target",
    "make_truncated",
    "soft_overlong",
    "target",
    "truncated",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    __version__: str
    from grpo_rewards import Reward

    from .cosine_length import CosineLength
    from .definitions import make_cosine, make_group_relative, make_soft_overlong, make_target, make_truncated
    from .group import GroupRelativeLength
    from .overlong import DEFAULT_MAX_LENGTH, SoftOverlong
    from .target_length import TargetLength
    from .truncation import Truncated

    target: Reward
    soft_overlong: Reward
    cosine: Reward
    group_relative: Reward
    truncated: Reward
