"""The ``gym`` plugin: registers ``gym.accuracy``, a task ``gym:<dataset>`` per reasoning-gym dataset, and ``gym:mix``.

Registration reads the dataset names and parameters from ``catalog.json``: reasoning-gym is not
imported here, so ``grpo-rewards list`` stays fast.
"""

from __future__ import annotations

from typing import Any

import grpo_rewards

from .catalog import catalog, dataset_names
from .definitions import ACCURACY
from .tasks import BROKEN, COLUMNS, MIX_PARAMS, GymTask, make_mix


@grpo_rewards.hookimpl
def register_rewards(register: grpo_rewards.RegisterReward) -> None:
    ACCURACY.register(register)


def default_rewards() -> list[dict[str, Any]]:
    """The reward set the gym tasks train with by default."""
    return [{"use": "gym.accuracy", "weight": 1.0}]


@grpo_rewards.hookimpl
def register_tasks(register: grpo_rewards.RegisterTask) -> None:
    datasets = catalog()["datasets"]
    for name in dataset_names():
        task = GymTask(name)
        description = f"reasoning-gym's {name}" + (f": {datasets[name]['description']}" if datasets[name]["description"] else "")
        if name in BROKEN:
            description += f" (known-broken scorer, kept out of gym:mix: {BROKEN[name]})"
        register(name, task, description=description, columns=list(COLUMNS), default_rewards=default_rewards(),
                 params=task.params())
    register("mix", make_mix, description="reasoning-gym datasets mixed by weight, as its composite dataset "
             "mixes them: tasks: [{task: gym:<name>, weight: 1.0, params: {...}}] (default: every dataset whose "
             "scorer is not known to be broken)", columns=list(COLUMNS), default_rewards=default_rewards(),
             params=MIX_PARAMS)
