"""The task code:sql: seeded rows whose own gold queries code.sql_match scores as matched, and its docstrings run."""

from __future__ import annotations

import doctest
import importlib

import pytest

from grpo_rewards import load_registry
from grpo_rewards_code.sql import SqlMatch
from grpo_rewards_code.sql_tasks import FAMILIES, make_sql


def test_every_rows_own_gold_query_is_matched_and_a_wrong_one_is_not(sandbox):
    rows = make_sql(12, seed=3)
    assert [r["family"] for r in rows] == list(FAMILIES) * 2
    score = SqlMatch()
    assert [score(f"```sql\n{r['query']}\n```", **r) for r in rows] == [(1.0, "matched")] * 12
    assert score("```sql\nSELECT COUNT(*) FROM orders\n```", **rows[0])[0] == 0.0


def test_rows_are_the_same_for_a_seed_and_differ_across_seeds():
    assert make_sql(6, seed=1) == make_sql(6, seed=1)
    assert make_sql(6, seed=1) != make_sql(6, seed=2)
    with pytest.raises(ValueError, match="families must be some of"):
        make_sql(2, seed=0, families=["nope"])


def test_the_task_is_registered_with_code_sql_match_as_its_reward():
    task = load_registry().tasks["code:sql"]
    assert task.default_rewards == [{"use": "code.sql_match", "weight": 1.0}]
    assert list(task.columns) == ["prompt", "family", "db_sql", "query"]


@pytest.mark.parametrize("module", ["sql", "sql_rows", "sql_tasks", "sql_hacks", "definitions"])
def test_docstring_examples_pass(module, sandbox):
    result = doctest.testmod(importlib.import_module(f"grpo_rewards_code.{module}"))
    assert result.failed == 0 and (result.attempted > 0 or module == "sql_hacks")
