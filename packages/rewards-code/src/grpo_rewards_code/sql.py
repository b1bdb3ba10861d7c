r"""``code.sql_match``: the completion's SQL query run against the row's SQLite database, its rows against the gold's.

Where a query runs: in the code package's sandbox (:mod:`grpo_rewards_code.sandbox`; warm bwrap by default), as the
stdin of a fixed Python program (:data:`RUNNER`) that opens the database read-only (its folder bound read-only into
the sandbox: a Spider/BIRD ``database_dir``, else the file's folder, so a thread keeps one warm sandbox per folder,
not per database; the file alone where the folder is not world-searchable; the file opened ``mode=ro&immutable=1``;
or built in memory from the row's ``db_sql``, then ``PRAGMA query_only``) and runs one statement under an authorizer that allows reading only: ``SELECT``, reads of
tables and columns, recursive CTEs and functions other than ``load_extension`` (and the shell's file
functions). ``ATTACH``, ``DETACH``, every ``PRAGMA``, every write and schema change are refused by SQLite itself
(``not authorized``: ``sql_error``); more than one statement is refused (``sql_error``); extension loading stays
disabled. Two limits: the query's wall time (``time_limit``, through SQLite's progress handler: ``timeout``) and
the sandbox's CPU, memory and output limits around it. Nothing but the query enters the sandbox for the
completion's run: the gold runs in a run of its own (once per database and gold query in a process, then cached).

Labels: ``matched`` (1.0), ``mismatched`` (0.0: other rows, other order for an ordered gold, more rows than
``max_rows``), ``sql_error`` (0.0: SQLite refused or failed the query, it holds no statement (only comments or ``;``,
which would otherwise return no rows and match an empty gold), or it ran out of memory), ``timeout`` (0.0),
``no_sql`` (0.0: no query in the completion); ``None`` with a warning: ``sandbox_error`` (the sandbox failed),
``no_database`` (the row's database cannot be read: a missing file, ``db_sql`` that does not build), ``gold_error``
(the gold query itself fails, times out or returns more than ``max_rows``), ``bad_row`` (no database or no gold
can be read from the row; training refuses such rows before it starts); ``None`` quietly: ``no_gold`` (a row
without any database or gold column, as another task's row in a mixed dataset).
"""

from __future__ import annotations

import json
import os
import threading
import warnings
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from grpo_rewards import NotApplicable
from grpo_rewards import params as checks

from .sandbox import Limits, Sandbox, SandboxUnavailable, describe_sandbox, get_sandbox
from .sql_rows import (
    TOLERANCE,
    SqlRow,
    SqlRowError,
    check_sql_rows,
    extract_sql,
    normalise_sql_row,
    results_match,
    results_match_any_columns,
)

OUTCOMES = ("matched", "mismatched", "sql_error", "timeout", "no_sql", "sandbox_error", "no_database", "gold_error", "bad_row",
            "no_gold")
DEFAULT_TIME = 5.0  # one assignment each: `list --json` reads these defaults from the source
DEFAULT_MAX_ROWS = 50_000

#: the program the sandbox runs for one query; its stdin: {"db_path" | "db_sql", "query", "time", "max_rows"}
RUNNER = r'''
import json, sqlite3, sys, time
job = json.loads(sys.stdin.read())
def out(**report):
    sys.stdout.write(json.dumps(report))
    sys.stdout.flush()
try:
    if job.get("db_path") is not None:
        conn = sqlite3.connect("file:" + job["db_path"].replace("%", "%25").replace("?", "%3f").replace("#", "%23") + "?mode=ro&immutable=1",
                               uri=True, isolation_level=None)
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    else:
        conn = sqlite3.connect(":memory:", isolation_level=None)
        conn.executescript(job["db_sql"])
    conn.execute("PRAGMA query_only = ON")
    conn.text_factory = lambda b: b.decode("utf-8", "replace")  # text that is not UTF-8 (some Spider rows)
except (sqlite3.Error, ValueError) as exc:
    out(database_error=type(exc).__name__ + ": " + str(exc)[:300])
    raise SystemExit(0)
ALLOWED = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, getattr(sqlite3, "SQLITE_RECURSIVE", 33)}
DENIED_FUNCTIONS = {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer", "zipfile", "sqlar_compress"}
def authorize(action, arg1, arg2, db, source):
    if action not in ALLOWED:
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in DENIED_FUNCTIONS:
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK
conn.set_authorizer(authorize)
deadline = time.monotonic() + job["time"]
conn.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 1000)
def cell(v):
    return [v.hex()] if isinstance(v, bytes) else v
try:
    cursor = conn.execute(job["query"])
    if cursor.description is None:  # every statement the authorizer allows has columns: this ran none
        out(error="no statement to run: the query is only comments or semicolons", kind="EmptyQuery")
        raise SystemExit(0)
    rows = []
    while len(rows) <= job["max_rows"]:
        chunk = cursor.fetchmany(1000)
        if not chunk:
            break
        rows.extend([cell(v) for v in row] for row in chunk)
except (sqlite3.Error, sqlite3.Warning) as exc:  # Warning: two statements, before Python 3.11
    if time.monotonic() > deadline:
        out(timeout=True)
    else:
        out(error=str(exc)[:300], kind=type(exc).__name__)
except MemoryError:
    out(error="the query ran out of memory", kind="MemoryError")
else:
    if len(rows) > job["max_rows"]:
        out(too_many=True)
    else:
        out(rows=rows, columns=[d[0] for d in cursor.description or []])
'''


def _decode(rows: list[list[Any]]) -> list[tuple[Any, ...]]:
    return [tuple(bytes.fromhex(v[0]) if isinstance(v, list) else v for v in row) for row in rows]


class DatabaseUnreadable(Exception):
    """The database cannot be opened or built (``no_database``)."""


@dataclass(frozen=True)
class QueryResult:
    """What one query gave: ``status`` ``rows`` (with ``rows`` and ``columns``), ``error`` (SQLite's ``error``
    message and its exception's name in ``kind``), ``timeout`` or ``too_many`` (more than ``max_rows``, or more
    output than the sandbox lets through: ``error`` says which)."""

    status: str
    rows: list[tuple[Any, ...]] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    error: str = ""
    kind: str = ""

    @property
    def why(self) -> str:
        return f"{self.kind}: {self.error}" if self.kind else self.error


def run_query(sandbox: Sandbox, row: SqlRow, query: str, time_limit: float, max_rows: int) -> QueryResult:
    """One query on ``row``'s database in the sandbox (:data:`RUNNER`); raises :class:`DatabaseUnreadable` and
    :class:`SandboxUnavailable`. The one way this package and the tools package's ``tools.sqlite`` run SQL."""
    limits = Limits(time=time_limit + 1.0, memory=1 << 30, output=64 << 20, total=time_limit * 2 + 10)
    stdin = json.dumps({"db_path": row.db_path, "db_sql": row.db_sql, "query": query, "time": time_limit,
                        "max_rows": max_rows})
    job = {"language": "python", "program": RUNNER, "tests": [{"kind": "stdio", "input": stdin}], "limits": limits.job(),
           "sys_path": []}
    results, fatal = sandbox.run(job, deadline=limits.deadline(1), read_only=(row.folder,) if row.folder else ())
    if fatal is not None or not results:
        raise SandboxUnavailable(fatal or "the sandbox returned no result")
    raw = results[0]
    status = raw.get("status")
    if status == "timeout":
        return QueryResult("timeout")
    if status == "memory":
        return QueryResult("error", error="the query ran out of memory", kind="MemoryError")
    if status == "output_limit":  # a few rows may be megabytes each (printf('%.*c', 70000000, 'x'))
        return QueryResult("too_many", error=f"more than {limits.output >> 20} MiB of text")
    if status == "sandbox_error":
        raise SandboxUnavailable(str(raw.get("error")))
    if status != "ok":
        return QueryResult("error", error=str(raw.get("error")))
    try:
        report = json.loads(raw.get("stdout") or "")
    except ValueError as exc:
        raise SandboxUnavailable(f"unreadable query runner output: {exc}") from exc
    if "database_error" in report:
        raise DatabaseUnreadable(report["database_error"])
    if "rows" in report:
        return QueryResult("rows", _decode(report["rows"]), [str(c) for c in report.get("columns", [])])
    if report.get("timeout"):
        return QueryResult("timeout")
    if report.get("too_many"):
        return QueryResult("too_many", error=f"more than {max_rows} rows")
    return QueryResult("error", error=str(report.get("error")), kind=str(report.get("kind", "")))


#: gold results kept per process: (database identity, gold query, limits) -> rows
_GOLD: OrderedDict[tuple[Any, ...], QueryResult] = OrderedDict()
_GOLD_LOCK = threading.Lock()
GOLD_CACHE_SIZE = 256


def _identity(row: SqlRow) -> tuple[Any, ...]:
    if row.db_path is not None:
        stat = os.stat(row.db_path)
        return ("path", row.db_path, stat.st_mtime_ns, stat.st_size)
    return ("sql", row.db_sql)


class SqlMatch:
    r"""1.0 when the completion's SQL query returns the gold's rows on the row's SQLite database, else 0.0 (unit: none).

    Exact rule: the query is the last fenced block tagged ``sql`` (or untagged; or the bare reply beginning with
    ``SELECT``/``WITH``/``VALUES``); it runs read-only in the sandbox for at most ``time_limit`` seconds (see the
    module's docstring for what is refused); its rows equal the gold's (the gold query's rows, run the same way, or
    the row's ``result``) as multisets, in order only when the gold query's outermost ``SELECT`` has an
    ``ORDER BY``; columns by position, their names ignored; two integers exactly, other numbers within
    ``tolerance`` (relative and absolute); ``'3'`` is not ``3``; with ``any_column_order``, columns in any order
    (test-suite-sql-eval's rule, up to six columns). ``database_dir``: where Spider/BIRD rows'
    ``db_id`` folders are. A query returning the gold's literal values (``SELECT 3`` where the gold counts 3 rows)
    is ``matched``: the reward checks the result, as Spider's and BIRD's execution accuracy do.

    >>> score = SqlMatch()
    >>> row = {"db_sql": "CREATE TABLE t(a INT); INSERT INTO t VALUES (1), (2), (3);", "query": "SELECT count(*) FROM t"}
    >>> score("```sql\nSELECT COUNT(a) FROM t\n```", **row), score("SELECT sum(a) FROM t", **row)
    ((1.0, 'matched'), (0.0, 'mismatched'))
    >>> score("```sql\nSELECT * FROM nowhere\n```", **row), score("It is three.", **row)
    ((0.0, 'sql_error'), (0.0, 'no_sql'))
    """

    def __init__(self, time_limit: float = DEFAULT_TIME, tolerance: float = TOLERANCE, max_rows: int = DEFAULT_MAX_ROWS,
                 database_dir: str | None = None, any_column_order: bool = False) -> None:
        self.time_limit = checks.number(time_limit, "time_limit", low=0.01, high=300)
        self.tolerance = checks.number(tolerance, "tolerance", low=0.0, high=1.0)
        self.max_rows = checks.integer(max_rows, "max_rows", low=1, high=10_000_000)
        if database_dir is not None and not isinstance(database_dir, (str, os.PathLike)):
            raise TypeError(f"database_dir must be a folder path, not {type(database_dir).__name__}")
        self.database_dir = None if database_dir is None else os.fspath(database_dir)
        self.any_column_order = checks.boolean(any_column_order, "any_column_order")

    def __repr__(self) -> str:
        return f"<SqlMatch time_limit={self.time_limit} tolerance={self.tolerance}>"

    @staticmethod
    def describe_runtime() -> str:
        """The sandbox the queries run in."""
        return "sandbox: " + describe_sandbox()

    @staticmethod
    def check_rows(rows: Any) -> list[str]:
        """Before training: a line per row without a readable database or gold, and one when no sandbox runs here
        (read from the registered class: a Spider/BIRD row's ``db_id`` is checked only when it has a
        ``database_dir`` column, the parameter being unknown here)."""
        try:
            get_sandbox()
        except SandboxUnavailable as exc:
            return [str(exc)]
        return check_sql_rows(rows)

    def gold(self, sandbox: Sandbox, row: SqlRow) -> QueryResult:
        """The gold's rows (from the row, or its query run once and cached), else why not."""
        if row.rows is not None:
            return QueryResult("rows", list(row.rows))
        assert row.query is not None
        key = (_identity(row), row.query, self.time_limit, self.max_rows)
        with _GOLD_LOCK:
            if key in _GOLD:
                _GOLD.move_to_end(key)
                return _GOLD[key]
        found = run_query(sandbox, row, row.query, self.time_limit, self.max_rows)
        if found.status in ("rows", "error"):  # a timeout may be the machine's load: tried again next time
            with _GOLD_LOCK:
                _GOLD[key] = found
                while len(_GOLD) > GOLD_CACHE_SIZE:
                    _GOLD.popitem(last=False)
        return found

    def evaluate(self, text: str, **columns: Any) -> dict[str, Any]:
        """What the reward read and decided: the query, the gold's and the query's outcome, the value and label."""
        try:
            row = normalise_sql_row(columns, self.database_dir)
        except SqlRowError as exc:  # (without any of its columns: another task's row, quietly None)
            return {"value": None, "label": "no_gold" if isinstance(exc, NotApplicable) else "bad_row", "why": str(exc)}
        query = extract_sql(text)
        if query is None:
            return {"value": 0.0, "label": "no_sql", "query": None}
        if row.db_path is not None and not os.path.isfile(row.db_path):
            return {"value": None, "label": "no_database", "why": f"no database file {row.db_path}"}
        try:
            sandbox = get_sandbox()
            gold = self.gold(sandbox, row)
            if gold.status != "rows":
                return {"value": None, "label": "gold_error", "query": query,
                        "why": f"the gold query: {gold.status} {gold.why}".strip()}
            got = run_query(sandbox, row, query, self.time_limit, self.max_rows)
        except DatabaseUnreadable as exc:
            return {"value": None, "label": "no_database", "why": f"{row.database}: {exc}"}
        except (SandboxUnavailable, OSError) as exc:
            return {"value": None, "label": "sandbox_error", "why": str(exc)}
        out: dict[str, Any] = {"query": query, "ordered": row.ordered, "gold_rows": len(gold.rows)}
        if got.status == "rows":
            compare = results_match_any_columns if self.any_column_order else results_match
            matched = compare(gold.rows, got.rows, row.ordered, self.tolerance)
            return out | {"rows": len(got.rows), "value": 1.0 if matched else 0.0, "label": "matched" if matched else "mismatched"}
        if got.status == "too_many":
            return out | {"value": 0.0, "label": "mismatched", "why": got.error}
        if got.status == "timeout":
            return out | {"value": 0.0, "label": "timeout"}
        return out | {"value": 0.0, "label": "sql_error", "why": got.why}

    def __call__(self, text: str, **columns: Any) -> tuple[float | None, str]:
        found = self.evaluate(text, **columns)
        if found["value"] is None and found["label"] != "no_gold":
            warnings.warn(f"code.sql_match: {found['label']}: {found.get('why')}", RuntimeWarning, stacklevel=2)
        return found["value"], found["label"]

    def explain(self, completion: Any, **columns: Any) -> dict[str, Any]:
        """What the reward read and decided (the query, row counts, the label and why)."""
        from grpo_rewards import completion_text

        return self.evaluate(completion_text(completion) or "", **columns)


__all__ = ["OUTCOMES", "RUNNER", "DatabaseUnreadable", "QueryResult", "SqlMatch", "run_query"]
