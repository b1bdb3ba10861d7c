"""``tools.sqlite``: a small SQLite database per row that the model queries, read-only, with a time limit.

``reset(**row)`` builds a fresh in-memory database from the row's ``database`` column (an SQL
script of ``CREATE TABLE`` and ``INSERT`` statements) and reads its ``gold`` column (the expected
result set, as JSON); nothing is shared between rollouts. The ``query(sql)`` tool then runs one
statement under three guards: the connection is read-only (``PRAGMA query_only``), an authorizer
allows reading and nothing else (no ``ATTACH``, no ``PRAGMA``, no writes), and a progress handler
interrupts a statement past ``timeout`` seconds (``WITH RECURSIVE`` loops included).

It owns its reward: the result set of the last query that ran compared with the gold as a
multiset of rows (order ignored; numbers equal within 1e-9), 1.0 or 0.0, labelled ``correct``,
``wrong_result``, ``query_error`` (the last query failed) or ``no_query``; a row without ``gold``
is not scored (``None``, label ``no_gold``).

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
import math
import sqlite3
import time
from collections import Counter
from typing import Any

#: What the authorizer lets a query do: read tables and columns, call functions, select, recurse.
_ALLOWED = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION,
            getattr(sqlite3, "SQLITE_RECURSIVE", 33)}


def _key(value: Any) -> Any:
    """A cell as compared: numbers as floats rounded to 9 places (2 == 2.0), text and None as they are."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return round(float(value), 9) if math.isfinite(value) else str(value)
    return value


def same_rows(got: list[list[Any]], gold: list[list[Any]]) -> bool:
    """Whether two result sets hold the same rows, as multisets (order ignored).

    >>> same_rows([[2, "b"], [1.0, "a"]], [[1, "a"], [2, "b"]]), same_rows([[1]], [[1], [1]])
    (True, False)
    """
    return Counter(tuple(_key(v) for v in row) for row in got) == Counter(tuple(_key(v) for v in row) for row in gold)


class SQLite:
    """A small read-only SQLite database per row, queried with SQL; owns its reward (the last result vs the gold)."""

    def __init__(self, timeout: float = 1.0, max_rows: int = 50, max_chars: int = 2000) -> None:
        self.timeout = timeout
        self.max_rows = max_rows
        self.max_chars = max_chars
        self._connection: sqlite3.Connection | None = None
        self._gold: list[list[Any]] | None = None
        self._last: list[list[Any]] | None = None
        self._last_failed = False
        self._deadline = 0.0
        self.outcome = "no_query"

    def reset(self, **row: Any) -> None:
        if self._connection is not None:
            self._connection.close()
        connection = sqlite3.connect(":memory:", check_same_thread=False)
        script = row.get("database")
        if isinstance(script, str):
            connection.executescript(script)
        connection.execute("PRAGMA query_only = ON")
        connection.set_authorizer(self._authorize)
        connection.set_progress_handler(self._interrupt, 1000)
        self._connection = connection
        gold = row.get("gold")
        self._gold = json.loads(gold) if isinstance(gold, str) else gold
        self._last, self._last_failed, self.outcome = None, False, "no_query"

    @staticmethod
    def _authorize(action: int, *args: Any) -> int:
        return sqlite3.SQLITE_OK if action in _ALLOWED else sqlite3.SQLITE_DENY

    def _interrupt(self) -> int:
        return 1 if time.monotonic() > self._deadline else 0

    def query(self, sql: str) -> str:
        """Run one read-only SQL query on the database and return its column names and result rows.

        Args:
            sql: one SQL statement, for example "SELECT name FROM employees WHERE salary > 5000"
        """
        if self._connection is None:
            return "error: no database (reset was not called)"
        if not isinstance(sql, str) or not sql.strip():
            return "error: give one SQL statement as text"
        if len(sql) > self.max_chars:
            return f"error: the statement has {len(sql)} characters, more than {self.max_chars}"
        self._deadline = time.monotonic() + self.timeout
        try:
            cursor = self._connection.execute(sql)
            rows = [list(r) for r in cursor.fetchmany(10_000 + 1)]
        except sqlite3.Warning as exc:  # more than one statement
            self._last_failed = True
            return f"error: {exc}"
        except sqlite3.Error as exc:
            self._last_failed = True
            if "interrupted" in str(exc):
                return f"error: the query ran past its {self.timeout:g} s limit and was stopped"
            return f"error: {exc}"
        if len(rows) > 10_000:
            self._last_failed = True
            return "error: the query returned more than 10000 rows"
        self._last, self._last_failed = rows, False
        columns = [d[0] for d in cursor.description or []]
        shown = rows[: self.max_rows]
        text = "columns: " + json.dumps(columns) + "".join("\n" + json.dumps(r, default=str) for r in shown)
        if len(rows) > len(shown):
            text += f"\n... {len(rows) - len(shown)} more rows"
        return text

    def get_reward(self) -> float | None:
        """1.0 when the last query's result set equals the gold (rows as a multiset), else 0.0."""
        if self._gold is None:
            self.outcome = "no_gold"
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
