"""``code.tests_passed``, ``code.all_passed`` and ``code.sql_match``, each defined once: what the plugin registers and the package exports.

The scorers are named by reference (``"grpo_rewards_code.scoring:TestsPassed"``), so registering the
plugin (``grpo-rewards list``) imports neither the sandbox nor the test formats.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grpo_rewards import RewardDefinition, RewardOptions

from .hacks import corpus
from .sql_hacks import corpus as sql_corpus

if TYPE_CHECKING:  # the reward module (and its execution layer) is imported when a reward is built
    from grpo_rewards import Reward

#: Samples run in worker processes (one sandbox each, in parallel); the sandbox has its own per-test
#: deadlines and kills itself well before this one, which only guards against a stuck worker.
OPTIONS = RewardOptions(timeout=600.0, timeout_value=None, invalid_value=0.0, max_chars=200_000, too_large_value=0.0)

TESTS_PASSED = RewardDefinition(
    "code.tests_passed", "grpo_rewards_code.scoring:TestsPassed", output_range=(0.0, 1.0), options=OPTIONS,
    hacks=corpus,
    example="{use: code.tests_passed, with: {time_limit: 2}} on rows with a tests column (stdin/stdout, call or assert tests)",
)
ALL_PASSED = RewardDefinition(
    "code.all_passed", "grpo_rewards_code.scoring:AllPassed", output_range=(0.0, 1.0), options=OPTIONS, hacks=corpus,
    example="{use: code.all_passed} on code:humaneval rows; a canonical solution -> 1.0",
)

#: one query per sample, in this process's warm sandbox (the runner has its own time limit, well inside this one)
SQL_OPTIONS = RewardOptions(timeout=120.0, timeout_value=None, invalid_value=0.0, max_chars=100_000, too_large_value=0.0)
SQL_MATCH = RewardDefinition(
    "code.sql_match", "grpo_rewards_code.sql:SqlMatch", output_range=(0.0, 1.0), options=SQL_OPTIONS,
    hacks=sql_corpus,
    example="{use: code.sql_match, with: {time_limit: 5}} on rows with db_sql or db_path and a gold query (code:sql)",
)

#: The rewards, in the order the plugin registers them.
DEFINITIONS = (TESTS_PASSED, ALL_PASSED, SQL_MATCH)


def make_tests_passed(metric: str | None = None, options: RewardOptions | dict[str, Any] | None = None,
                      **params: Any) -> Reward:
    r"""A ``code.tests_passed`` reward with parameters, ready for ``GRPOTrainer(reward_funcs=[...])``.

    >>> reward = make_tests_passed(time_limit=1.0)
    >>> reward(prompts=["p"], completions=["```python\nprint(input())\n```"], tests=[[{"input": "7\n", "output": "7"}]])
    [1.0]
    """
    return TESTS_PASSED.reward(metric=metric, options=options, **params)


def make_all_passed(metric: str | None = None, options: RewardOptions | dict[str, Any] | None = None,
                    **params: Any) -> Reward:
    """A ``code.all_passed`` reward with parameters (see :func:`make_tests_passed`)."""
    return ALL_PASSED.reward(metric=metric, options=options, **params)


def make_sql_match(metric: str | None = None, options: RewardOptions | dict[str, Any] | None = None,
                   **params: Any) -> Reward:
    r"""A ``code.sql_match`` reward with parameters, ready for ``GRPOTrainer(reward_funcs=[...])``.

    >>> reward = make_sql_match(time_limit=2.0)
    >>> reward(prompts=["p"], completions=["```sql\nSELECT 2 * 21\n```"], db_sql=["CREATE TABLE t(a);"], result=[[[42]]])
    [1.0]
    """
    return SQL_MATCH.reward(metric=metric, options=options, **params)
