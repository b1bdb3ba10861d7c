"""What the ``tools`` plugin registers for its environments: ``tools.calculator``, ``tools.sqlite`` and
``tools.python``, and the tasks ``tools:calculator`` and ``tools:sqlite`` (each naming its environment,
so ``dataset: {task: tools:calculator}`` is a complete training run). Environments are registered by
reference: listing them imports none of their code."""

from __future__ import annotations

from typing import Any

from .hacks import sqlite_hacks
from .tasks import make_calculator, make_sqlite

_HERE = "grpo_rewards_tools.environments"


def register_environments(register: Any) -> None:
    register("calculator", f"{_HERE}.calculator:Calculator", reward=False,
             example='calculate(expression="4821 * 376") -> "1812696"')
    register("sqlite", f"{_HERE}.database:SQLite", reward=True, hacks=sqlite_hacks,
             example='query(sql="SELECT COUNT(*) FROM employees") -> "columns: [\\"COUNT(*)\\"]\\n[8]"')
    register("python", f"{_HERE}.python:Python", reward=False,
             example='run_python(code="x = 6 * 7\\nprint(x)") -> "42\\n"')


def register_tasks(register: Any) -> None:
    register("calculator", make_calculator, columns=["prompt", "solution"], environment="tools.calculator",
             default_rewards=[{"use": "math.accuracy", "weight": 1.0, "with": {"answer_format": "boxed"}}])
    register("sqlite", make_sqlite, columns=["prompt", "database", "gold", "gold_sql"], environment="tools.sqlite")
