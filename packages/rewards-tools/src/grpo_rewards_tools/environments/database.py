"""``tools.sqlite``: a small SQLite database per row that the model queries, read-only, with a time limit.

``reset(**row)`` takes the row's ``database`` column (an SQL script of ``CREATE TABLE`` and ``INSERT``
statements) and its ``gold`` column (the expected result set, as JSON); nothing is shared between rollouts.
The ``query(sql)`` tool then runs one statement the way ``code.sql_match`` runs a completion's query
(:func:`grpo_rewards_code.sql.run_query`, one place for both): in grpo-rewards-code's sandbox, on a database
built in memory from the script, read-only (``PRAGMA query_only``), under an authorizer that allows reading
and nothing else (no ``ATTACH``, no ``PRAGMA``, no writes, no ``load_extension``), a progress handler that
stops a statement past ``timeout`` seconds (``WITH RECURSIVE`` loops included), and the sandbox's CPU and
memory limits (a query that builds a gigabyte no longer grows the trainer's own memory).

It owns its reward: the result set of the last query that ran compared with the gold as a multiset of rows
(order ignored; :func:`grpo_rewards_code.sql_rows.results_match`: an integer only by the same integer, other
numbers within 1e-6), 1.0 or 0.0, labelled ``correct``, ``wrong_result``, ``query_error`` (the last query
failed) or ``no_query``; a row without ``gold`` is not scored (``None``, label ``no_gold``), nor is a row whose
``gold`` is not a list of rows or its JSON text (``None``, ``bad_gold``, with a warning; the rollout still runs),
nor a rollout whose queries the sandbox could not run (``None``, ``sandbox_error``, with a warning), nor a row
without a ``database`` script (the column missing or not text) or whose script does not build, found at the first
query (``None``, ``no_database``, with a warning: the model's queries could only fail). What the model sees of a
result is at most ``max_rows`` rows and ``max_output`` characters.

>>> db = SQLite()
>>> db.reset(database="CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (1), (2), (3);", gold="[[6]]")
>>> db.query("SELECT SUM(x) FROM t")
'columns: ["SUM(x)"]\\n[6]'
>>> db.get_reward(), db.outcome
(1.0, 'correct')
>>> db.query("DELETE FROM t")
'error: not authorized'
"""

from __future__ import annotations

import json
import warnings
from typing import Any

from grpo_rewards import params as checks

#: the most rows a query may return (more: an error the model sees)
MAX_ROWS = 10_000


def same_rows(got: list[list[Any]], gold: list[list[Any]]) -> bool:
    """Whether two result sets hold the same rows, as multisets (order ignored).

    >>> same_rows([[2, "b"], [1.0, "a"]], [[1, "a"], [2, "b"]]), same_rows([[1]], [[1], [1]])
    (True, False)
    """
    from grpo_rewards_code.sql_rows import results_match

    return results_match(gold, got, ordered=False)


class SQLite:
    """A small read-only SQLite database per row, queried with SQL; owns its reward (the last result vs the gold)."""

    def __init__(self, timeout: float = 1.0, max_rows: int = 50, max_chars: int = 2000,
                 max_output: int = 2000) -> None:
        self.timeout = checks.number(timeout, "timeout", low=0.01, high=300)
        self.max_rows = checks.integer(max_rows, "max_rows", low=1, high=MAX_ROWS)
        self.max_chars = checks.integer(max_chars, "max_chars", low=1)
        self.max_output = checks.integer(max_output, "max_output", low=1)
        self._script: str | None = None
        self._no_database: str | None = None
        self._gold: list[list[Any]] | None = None
        self._bad_gold: str | None = None
        self._last: list[list[Any]] | None = None
        self._last_failed = False
        self._sandbox_failed: str | None = None
        self.outcome = "no_query"

    def reset(self, **row: Any) -> None:
        script = row.get("database")
        if isinstance(script, str):
            self._script, self._no_database = script, None
        else:  # the row's problem, not the model's: its queries could only fail
            self._script = ""
            self._no_database = ("the row has no database (its database column is missing or null)"
                                 if script is None else
                                 f"the row's database is a {type(script).__name__}, not an SQL script")
        self._gold, self._bad_gold = None, None
        gold = row.get("gold")
        if gold is not None:
            try:
                from grpo_rewards_code.sql_rows import SqlRowError, gold_rows
            except ImportError:  # query() tells the model, and the rollout gets None (sandbox_error)
                self._gold = gold
            else:
                try:
                    self._gold = [list(r) for r in gold_rows(gold, "gold")]
                except SqlRowError as exc:
                    self._bad_gold = str(exc)
        self._last, self._last_failed, self._sandbox_failed, self.outcome = None, False, None, "no_query"

    def query(self, sql: str) -> str:
        """Run one read-only SQL query on the database and return its column names and result rows.

        Args:
            sql: one SQL statement, for example "SELECT name FROM employees WHERE salary > 5000"
        """
        if self._script is None:
            return "error: no database (reset was not called)"
        if self._no_database is not None:
            return f"error: {self._no_database}"
        if not isinstance(sql, str) or not sql.strip():
            return "error: give one SQL statement as text"
        if len(sql) > self.max_chars:
            return f"error: the statement has {len(sql)} characters, more than {self.max_chars}"
        try:
            from grpo_rewards_code.sandbox import SandboxUnavailable, get_sandbox
            from grpo_rewards_code.sql import DatabaseUnreadable, run_query
            from grpo_rewards_code.sql_rows import SqlRow
        except ImportError as exc:  # the environment, not the model: no reward for this rollout
            return self._unavailable(f"grpo-rewards-code is not installed ({exc}): pip install grpo-rewards-code")
        row = SqlRow(db_path=None, db_sql=self._script, query=None, rows=None, ordered=False)
        try:
            found = run_query(get_sandbox(), row, sql, self.timeout, MAX_ROWS)
        except SandboxUnavailable as exc:
            return self._unavailable(f"the sandbox cannot run queries: {exc}")
        except DatabaseUnreadable as exc:  # the row's, not the model's: no reward for this rollout
            self._no_database = f"the database could not be built ({exc})"
            return f"error: {self._no_database}"
        if found.status == "timeout":
            self._last_failed = True
            return f"error: the query ran past its {self.timeout:g} s limit and was stopped"
        if found.status == "too_many":
            self._last_failed = True
            return f"error: the query's result is too large ({found.error})"
        if found.status != "rows":
            self._last_failed = True
            return f"error: {found.error}"
        rows = [list(r) for r in found.rows]
        self._last, self._last_failed = rows, False
        shown = rows[: self.max_rows]
        text = "columns: " + json.dumps(found.columns) + "".join("\n" + json.dumps(r, default=str) for r in shown)
        if len(rows) > len(shown):
            text += f"\n... {len(rows) - len(shown)} more rows"
        if len(text) > self.max_output:  # a row may hold megabytes (printf('%.*c', 10000000, 'x'))
            text = text[: self.max_output] + f"\n... ({len(text) - self.max_output} more characters)"
        return text

    def _unavailable(self, why: str) -> str:
        if self._sandbox_failed is None:
            warnings.warn(f"tools.sqlite: {why}", RuntimeWarning, stacklevel=3)
        self._sandbox_failed = why
        return f"error: the SQL sandbox is not available ({why})"

    def get_reward(self) -> float | None:
        """1.0 when the last query's result set equals the gold (rows as a multiset), else 0.0."""
        if self._bad_gold is not None:
            warnings.warn(f"tools.sqlite: bad_gold: {self._bad_gold}; the rollout gets None", RuntimeWarning,
                          stacklevel=2)
            self.outcome = "bad_gold"
            return None
        if self._gold is None:
            self.outcome = "no_gold"
            return None
        if self._sandbox_failed is not None:
            self.outcome = "sandbox_error"
            return None
        if self._no_database is not None:
            warnings.warn(f"tools.sqlite: no_database: {self._no_database}; the rollout gets None", RuntimeWarning,
                          stacklevel=2)
            self.outcome = "no_database"
            return None
        if self._last_failed:
            self.outcome = "query_error"
            return 0.0
        if self._last is None:
            self.outcome = "no_query"
            return 0.0
        correct = same_rows(self._last, self._gold)
        self.outcome = "correct" if correct else "wrong_result"
        return 1.0 if correct else 0.0
