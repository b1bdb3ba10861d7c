"""grpo-rewards: reward functions for GRPO training with TRL, discovered as plugins.

The public names a plugin or a training script needs. ``import grpo_rewards`` costs almost
nothing: each name is imported from its module on first use (PEP 562), so a plugin that only needs
``hookimpl`` loads pluggy and nothing else, and no public name pulls in torch, transformers, trl
or sympy.

>>> from grpo_rewards import hookimpl, completion_text
>>> completion_text([{"role": "assistant", "content": "42"}])
'42'
"""

from __future__ import annotations

from . import forking  # noqa: F401 - its at-fork hook (torch's threads in a forked child), before any reward runs
from .lazy import lazy_exports

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing alone costs ~15 ms

#: public name -> module that defines it
_EXPORTS = {
    "Outcome": "execution",
    "WorkerPool": "execution",
    "map_with_deadline": "execution",
    "keep_across_tasks": "execution.containment",
    "PROJECT_NAME": "plugin",
    "RegisterReward": "plugin.spec",
    "RegisterTask": "plugin.spec",
    "RegisterEnvironment": "plugin.spec",
    "EnvironmentInfo": "environment",
    "EnvironmentFactory": "environment",
    "hookimpl": "plugin",
    "Plugins": "plugin.manager",
    "get_plugins": "plugin.manager",
    "ConfigError": "errors",
    "GrpoRewardsError": "errors",
    "PluginError": "errors",
    "ProblemsError": "errors",
    "RewardError": "errors",
    "RewardNotFoundError": "errors",
    "RewardSetError": "errors",
    "TaskNotFoundError": "errors",
    "EnvironmentNotFoundError": "errors",
    "RewardOptions": "options",
    "Completion": "protocol",
    "RewardFunc": "protocol",
    "RewardResult": "protocol",
    "Scorer": "protocol",
    "check_each_row": "protocol",
    "NotApplicable": "errors",
    "completion_text": "protocol",
    "message_text": "protocol",
    "trajectory_messages": "protocol",
    "Registry": "registry",
    "RewardInfo": "records",
    "TaskInfo": "records",
    "load_registry": "registry",
    "Reward": "reward",
    "ConcurrentReward": "concurrent",
    "Execution": "backends",
    "ExecutionError": "errors",
    "RewardDefinition": "definition",
    "RewardSet": "rewardset",
    "get_reward": "rewardset",
    "load_reward_set": "rewardset",
    "load_rewards": "rewardset",
    "model_path": "train.model",
}

#: public submodules, imported on first use like the names above
_MODULES = ("errors", "params")

__all__ = [
    "PROJECT_NAME",
    "Completion",
    "ConcurrentReward",
    "ConfigError",
    "EnvironmentFactory",
    "EnvironmentInfo",
    "EnvironmentNotFoundError",
    "Execution",
    "ExecutionError",
    "GrpoRewardsError",
    "NotApplicable",
    "Outcome",
    "PluginError",
    "Plugins",
    "ProblemsError",
    "RegisterEnvironment",
    "RegisterReward",
    "RegisterTask",
    "Registry",
    "Reward",
    "RewardDefinition",
    "RewardError",
    "RewardFunc",
    "RewardInfo",
    "RewardNotFoundError",
    "RewardOptions",
    "RewardResult",
    "RewardSet",
    "RewardSetError",
    "Scorer",
    "TaskInfo",
    "TaskNotFoundError",
    "WorkerPool",
    "check_each_row",
    "completion_text",
    "get_plugins",
    "get_reward",
    "hookimpl",
    "keep_across_tasks",
    "load_registry",
    "load_reward_set",
    "load_rewards",
    "map_with_deadline",
    "message_text",
    "model_path",
    "trajectory_messages",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, modules=_MODULES, distribution="grpo-rewards")


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    __version__: str

    from . import errors as errors
    from . import params as params
    from .backends import Execution
    from .concurrent import ConcurrentReward
    from .definition import RewardDefinition
    from .environment import EnvironmentFactory, EnvironmentInfo
    from .errors import (
        ConfigError,
        EnvironmentNotFoundError,
        ExecutionError,
        GrpoRewardsError,
        NotApplicable,
        PluginError,
        ProblemsError,
        RewardError,
        RewardNotFoundError,
        RewardSetError,
        TaskNotFoundError,
    )
    from .execution import Outcome, WorkerPool, map_with_deadline
    from .execution.containment import keep_across_tasks
    from .options import RewardOptions
    from .plugin import PROJECT_NAME, hookimpl
    from .plugin.manager import Plugins, get_plugins
    from .plugin.spec import RegisterEnvironment, RegisterReward, RegisterTask
    from .protocol import (
        Completion,
        RewardFunc,
        RewardResult,
        Scorer,
        check_each_row,
        completion_text,
        message_text,
        trajectory_messages,
    )
    from .records import RewardInfo, TaskInfo
    from .registry import Registry, load_registry
    from .reward import Reward
    from .rewardset import RewardSet, get_reward, load_reward_set, load_rewards
    from .train.model import model_path
