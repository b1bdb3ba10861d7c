"""The ``text`` plugin: registers the text rewards (:mod:`.definitions`) and the offline text tasks (:mod:`.tasks`).

Registration imports no metric library: the rewards are named by reference and loaded on first use.
"""

from __future__ import annotations

from typing import Any

from grpo_rewards import RegisterReward, RegisterTask, hookimpl

from .definitions import DEFINITIONS
from .tasks import TASKS

#: The columns each task's rows carry, and the reward set it trains with by default.
TASK_COLUMNS = {"capitals": ["prompt", "reference"], "json_extraction": ["prompt", "schema", "reference"]}
DEFAULT_REWARDS: dict[str, list[dict[str, Any]]] = {
    "capitals": [{"use": "text.exact_match", "weight": 1.0, "with": {"answer_format": "answer_tag"}},
                 {"use": "text.f1", "weight": 0.2, "with": {"answer_format": "answer_tag"}}],
    "json_extraction": [{"use": "text.json", "weight": 1.0,
                         "with": {"credit": "partial", "reference_column": "reference"}}],
}


@hookimpl
def register_rewards(register: RegisterReward) -> None:
    for definition in DEFINITIONS:
        definition.register(register)


@hookimpl
def register_tasks(register: RegisterTask) -> None:
    for name, (factory, description) in TASKS.items():
        register(name, factory, description=description, columns=TASK_COLUMNS[name],
                 default_rewards=DEFAULT_REWARDS[name])
