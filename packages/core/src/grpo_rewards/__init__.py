"""grpo-rewards: reward functions for GRPO training with TRL, discovered as plugins.

The public names a plugin or a training script needs. Importing this package is light: it loads
pluggy and nothing heavy (no torch, transformers, trl or sympy).
"""

from .execution import Outcome, WorkerPool, map_with_deadline
from .hookspecs import PROJECT_NAME, hookimpl
from .plugins import get_plugin_manager
from .protocol import (
    Completion,
    GrpoRewardsError,
    PluginError,
    RewardError,
    RewardFunc,
    RewardNotFoundError,
    RewardSetError,
    completion_text,
)
from .registry import Registry, RewardInfo, TaskInfo, load_registry
from .reward import Reward
from .rewardset import RewardSet, get_reward, load_reward_set, load_rewards

__version__ = "0.1.0"

__all__ = [
    "PROJECT_NAME",
    "Completion",
    "GrpoRewardsError",
    "Outcome",
    "PluginError",
    "Registry",
    "Reward",
    "RewardError",
    "RewardFunc",
    "RewardInfo",
    "RewardNotFoundError",
    "RewardSet",
    "RewardSetError",
    "TaskInfo",
    "WorkerPool",
    "completion_text",
    "get_plugin_manager",
    "get_reward",
    "hookimpl",
    "load_registry",
    "load_reward_set",
    "load_rewards",
    "map_with_deadline",
]
