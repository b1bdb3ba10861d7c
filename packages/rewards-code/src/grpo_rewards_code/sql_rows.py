r"""What ``code.sql_match`` reads: the completion's query, the row's database and gold, and how results compare.

Row forms (:func:`normalise_sql_row`):

- native: the database as a file (``db_path``) or as the SQL text that builds it (``db_sql``); the gold as a query
  (``query``) or as its rows (``result``: a list of rows, each a list, or a list of scalars for one column);
- Spider: ``db_id`` + ``query``; BIRD: ``db_id`` + ``SQL``. The database is ``<database_dir>/<db_id>/<db_id>.sqlite``
  (both benchmarks' layout; else ``<database_dir>/<db_id>.sqlite``), ``database_dir`` being the reward's parameter
  or the row's column of that name.

>>> extract_sql("I would run:\n```sql\nSELECT name FROM singer;\n```")
'SELECT name FROM singer;'
>>> extract_sql("select 1"), extract_sql("The answer is 3."), extract_sql("```python\nprint(1)\n```")
('select 1', None, None)
>>> gold_is_ordered("SELECT a FROM t ORDER BY a"), gold_is_ordered("SELECT * FROM (SELECT a FROM t ORDER BY a)")
(True, False)
>>> results_match([(1, "a"), (2.0, "b")], [(2, "b"), (1, "a")], ordered=False)
True
>>> results_match([(1,), (2,)], [(2,), (1,)], ordered=True), results_match([(1000000007,)], [(1000000008,)], ordered=False)
(False, False)
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from grpo_rewards import NotApplicable, check_each_row, jsontext

from .extract import fenced_blocks
from .sandbox_command import hides_own_mount

#: fence tags read as SQL (a block tagged with anything else is not a query: ``no_sql``)
SQL_TAGS = frozenset({"sql", "sqlite", "sqlite3", "mysql", "postgresql", "postgres", "psql", "plsql", "tsql"})
#: how a bare reply (no fence at all) must begin to be read as a query
_BARE = re.compile(r"^\s*(select|with|values)\b", re.IGNORECASE)
#: relative and absolute tolerance between two floats (an integer compares exactly)
TOLERANCE = 1e-6


class SqlRowError(ValueError):
    """A row from which no database or no gold can be read."""


class NoSqlColumns(SqlRowError, NotApplicable):
    """A row whose database and gold columns are all ``None`` or absent: another task's row in a mixed dataset,
    not scored (``None``, ``no_gold``) and not a problem of the row."""


#: the columns a row's database and gold are read from
SQL_COLUMNS = ("db_path", "db_sql", "db_id", "query", "SQL", "result")


def extract_sql(text: str) -> str | None:
    """The query of a completion: the last block tagged ``sql`` (or a dialect's tag), else the last untagged block,
    else the whole reply when it has no fence and begins with ``SELECT``, ``WITH`` or ``VALUES``; else None."""
    blocks = fenced_blocks(text)
    tagged = [body for tag, body in blocks if tag in SQL_TAGS]
    if tagged:
        chosen: str | None = tagged[-1]
    elif blocks:
        chosen = blocks[-1][1] if blocks[-1][0] == "" else None
    else:
        chosen = text if _BARE.match(text) else None
    if chosen is None or not chosen.strip():
        return None
    return chosen.strip()


def gold_is_ordered(query: str) -> bool:
    """Whether the gold query orders its rows: an ``ORDER BY`` on its outermost ``SELECT`` (or compound), read by
    sqlglot; an ``ORDER BY`` inside a subquery or CTE orders nothing the caller sees. A query sqlglot cannot
    parse is ordered when its text has an ``ORDER BY`` outside every parenthesis."""
    import sqlglot
    from sqlglot.errors import SqlglotError

    try:
        tree = sqlglot.parse_one(query, read="sqlite")
    except SqlglotError:
        return _top_level_order_by(query)
    return tree is not None and bool(tree.args.get("order"))


def _top_level_order_by(query: str) -> bool:
    depth, flat = 0, []
    for char in re.sub(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"", "''", query):
        depth += char == "("
        if depth == 0:
            flat.append(char)
        depth -= char == ")" and depth > 0
    return re.search(r"\border\s+by\b", "".join(flat), re.IGNORECASE) is not None


@dataclass(frozen=True)
class SqlRow:
    """One row's database (``db_path`` or ``db_sql``) and gold (``query`` or ``rows``, and whether it is ordered)."""

    db_path: str | None
    db_sql: str | None
    query: str | None
    rows: tuple[tuple[Any, ...], ...] | None
    ordered: bool
    #: what is bound read-only into the sandbox for ``db_path``: a Spider/BIRD row's ``database_dir``, else the
    #: file's folder (one warm sandbox per folder and thread, not one per database), or the file alone where the
    #: folder is not world-searchable
    folder: str | None = None

    @property
    def database(self) -> str:
        """How the database is named in messages."""
        return self.db_path or f"<db_sql, {len(self.db_sql or '')} chars>"


def gold_rows(value: Any, column: str = "result") -> tuple[tuple[Any, ...], ...]:
    """A gold result set from a row's ``column``: a list of rows (lists, or objects: their values in order; a
    scalar is a one-column row), or its JSON text; raises :class:`SqlRowError` saying why not (a cell that is a
    list or an object, which no SQL result holds, included). A boolean is SQLite's: ``true`` is 1, ``false`` 0.

    >>> gold_rows('[[1, "a"], {"n": 2, "s": "b"}, 3, [true]]')
    ((1, 'a'), (2, 'b'), (3,), (1,))
    """
    if isinstance(value, str):
        try:
            value = jsontext.loads(value)
        except ValueError as exc:
            raise SqlRowError(f"{column} is text that is not JSON rows: {exc}") from exc
    if not isinstance(value, Sequence) or isinstance(value, (str, bytes)):
        raise SqlRowError(f"{column} must be a list of rows, not {type(value).__name__}")
    rows = []
    for row in value:
        if isinstance(row, Mapping):
            rows.append(tuple(row.values()))
        elif isinstance(row, Sequence) and not isinstance(row, (str, bytes)):
            rows.append(tuple(row))
        else:
            rows.append((row,))
        for cell in rows[-1]:
            if isinstance(cell, (Mapping, list, tuple, set)):
                raise SqlRowError(f"{column}: row {len(rows) - 1} has a cell that is a {type(cell).__name__}, not a "
                                  "SQL value (a number, text or null)")
        if any(isinstance(cell, bool) for cell in rows[-1]):  # SQLite has no boolean: TRUE is 1 (never matched)
            rows[-1] = tuple(int(cell) if isinstance(cell, bool) else cell for cell in rows[-1])
    return tuple(rows)


def database_file(db_id: str, database_dir: str) -> str:
    """``<dir>/<db_id>/<db_id>.sqlite`` (Spider's and BIRD's layout), else ``<dir>/<db_id>.sqlite``."""
    if not re.fullmatch(r"[\w.-]+", db_id) or db_id.startswith("."):
        raise SqlRowError(f"db_id {db_id!r} is not a plain database name")
    nested = os.path.join(database_dir, db_id, db_id + ".sqlite")
    flat = os.path.join(database_dir, db_id + ".sqlite")
    return flat if not os.path.exists(nested) and os.path.exists(flat) else nested


def normalise_sql_row(row: Mapping[str, Any], database_dir: str | None = None) -> SqlRow:
    """The database and gold of a row in any form of the module's docstring; raises :class:`SqlRowError`.

    >>> normalise_sql_row({"db_sql": "CREATE TABLE t(a);", "query": "SELECT a FROM t ORDER BY a"}).ordered
    True
    >>> normalise_sql_row({"db_id": "concert_singer", "query": "SELECT 1"}, "/data/spider/database").db_path
    '/data/spider/database/concert_singer/concert_singer.sqlite'
    """
    if all(row.get(c) is None for c in SQL_COLUMNS):
        raise NoSqlColumns("row has no database and no gold: expected " + ", ".join(SQL_COLUMNS))
    db_path, db_sql = row.get("db_path"), row.get("db_sql")
    folder = None
    if db_path is None and db_sql is None and row.get("db_id") is not None:
        folder = database_dir or row.get("database_dir")
        if not folder:
            raise SqlRowError(f"row names db_id {row['db_id']!r} but no database_dir (the reward's parameter or a column)")
        db_path = database_file(str(row["db_id"]), str(folder))
    if db_path is not None and not isinstance(db_path, (str, os.PathLike)):
        raise SqlRowError(f"db_path must be a path, not {type(db_path).__name__}")
    if db_sql is not None and not isinstance(db_sql, str):
        raise SqlRowError(f"db_sql must be SQL text, not {type(db_sql).__name__}")
    if db_path is None and db_sql is None:
        raise SqlRowError("row has no database: db_path, db_sql, or db_id with a database_dir")
    query = row.get("query", row.get("SQL"))
    if query is not None:
        if not isinstance(query, str) or not query.strip():
            raise SqlRowError("the gold query (query / SQL) must be non-empty text")
        ordered = gold_is_ordered(query)
        rows = None
    elif row.get("result") is not None:
        rows, ordered = gold_rows(row["result"]), bool(row.get("ordered", False))
    else:
        raise SqlRowError("row has no gold: a query (query, BIRD's SQL) or its rows (result)")
    path = None if db_path is None else os.path.realpath(os.fspath(db_path))
    bound = None if path is None else _bound(path, os.path.realpath(str(folder)) if folder else os.path.dirname(path))
    return SqlRow(path, db_sql if path is None else None, query, rows, ordered, bound)


def _bound(path: str, folder: str) -> str:
    """What to bind for ``path``: ``folder`` when everyone may read the file through it (the sandbox's user owns
    nothing on the host), else the file alone (a folder of mode 700 is not searchable inside; ``/tmp`` or ``/``,
    which would cover the sandbox's own, :func:`~grpo_rewards_code.sandbox_command.hides_own_mount`)."""
    if os.path.commonpath([folder, path]) != folder or hides_own_mount(folder):  # a db_id folder linking out
        return path
    try:
        if os.stat(path).st_mode & 0o004 == 0:
            return path
        here = os.path.dirname(path)
        while True:
            if os.stat(here).st_mode & 0o005 != 0o005:
                return path
            if here == folder or here == os.path.dirname(here):
                return folder
            here = os.path.dirname(here)
    except OSError:
        return path


def _check_sql_row(row: Any, database_dir: str | None) -> None:
    if not isinstance(row, Mapping):
        raise SqlRowError(f"a row is a {type(row).__name__}, not a mapping of columns")
    if database_dir is None and row.get("db_id") is not None and not row.get("database_dir") \
            and row.get("db_path") is None and row.get("db_sql") is None:
        row = {**row, "db_sql": ""}  # its folder is the reward's parameter, unknown here: only the gold is checked
    found = normalise_sql_row(row, database_dir)
    if found.db_path is not None and not os.path.isfile(found.db_path):
        raise SqlRowError(f"no database file {found.db_path}")


def check_sql_rows(rows: Any, database_dir: str | None = None, *, max_problems: int = 5) -> list[str]:
    """A line per row (at most ``max_problems``) whose database or gold cannot be read, or whose database file is
    missing (a row naming only a ``db_id``, without ``database_dir``, has its gold checked); a row without any of
    :data:`SQL_COLUMNS` (another task's row) is none, unless all are."""
    return check_each_row(rows, partial(_check_sql_row, database_dir=database_dir), SqlRowError,
                          max_problems=max_problems)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def values_equal(a: Any, b: Any, tolerance: float = TOLERANCE) -> bool:
    """Two cells: numbers as numbers (an integer only by the same integer, as an int or a whole float; two floats
    within ``tolerance``, relative and absolute; NaN equals NaN), text and
    bytes exactly, NULL only NULL; text is never a number (``'3'`` is not ``3``)."""
    if _is_number(a) and _is_number(b):
        if isinstance(a, int) or isinstance(b, int):  # an integer is met only by itself (3.0 for 3, never 3.0000001)
            whole, other = (a, b) if isinstance(a, int) else (b, a)
            return other == whole if isinstance(other, int) else other.is_integer() and int(other) == whole
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return math.isclose(a, b, rel_tol=tolerance, abs_tol=tolerance)
    return type(a) is type(b) and a == b


def rows_equal(a: Sequence[Any], b: Sequence[Any], tolerance: float = TOLERANCE) -> bool:
    return len(a) == len(b) and all(values_equal(x, y, tolerance) for x, y in zip(a, b))


def _key(row: Sequence[Any]) -> tuple[Any, ...]:
    out: list[Any] = []
    for v in row:
        if v is None:
            out.append((0, 0, 0.0, ""))
        elif _is_number(v):  # by value: Python orders an int and a float exactly (float() of a 4,000-digit gold
            # integer raised OverflowError out of the reward)
            out.append((1, 1, 0.0, "") if isinstance(v, float) and math.isnan(v) else (1, 0, v, ""))
        elif isinstance(v, str):
            out.append((2, 0, 0.0, v))
        else:
            out.append((3, 0, 0.0, bytes(v).hex()))
    return tuple(out)


#: above this many rows an unordered comparison that fails after sorting is not retried pair by pair
GREEDY_LIMIT = 500


def results_match(gold: Sequence[Sequence[Any]], got: Sequence[Sequence[Any]], ordered: bool,
                  tolerance: float = TOLERANCE) -> bool:
    """Whether ``got`` is ``gold``: the same rows (:func:`values_equal` cell by cell; columns by position, their
    names ignored), in the same order when ``ordered``, else as multisets (each row as often as in the gold).

    Unordered results are sorted (numbers by value) and compared in turn; when that fails and a float is within
    ``tolerance`` of another, sorting may have split a pair, so up to :data:`GREEDY_LIMIT` rows are matched one
    gold row at a time against any unused row."""
    if len(gold) != len(got):
        return False
    if ordered:
        return all(rows_equal(a, b, tolerance) for a, b in zip(gold, got))
    left, right = sorted(gold, key=_key), sorted(got, key=_key)
    if all(rows_equal(a, b, tolerance) for a, b in zip(left, right)):
        return True
    if tolerance == 0 or len(gold) > GREEDY_LIMIT:
        return False
    unused = list(right)
    for row in left:
        match = next((i for i, other in enumerate(unused) if rows_equal(row, other, tolerance)), None)
        if match is None:
            return False
        unused.pop(match)
    return True


#: the most columns whose orders :func:`results_match_any_columns` tries (6! = 720 orders)
PERMUTED_COLUMNS = 6


def results_match_any_columns(gold: Sequence[Sequence[Any]], got: Sequence[Sequence[Any]], ordered: bool,
                              tolerance: float = TOLERANCE) -> bool:
    """:func:`results_match` for some order of ``got``'s columns (test-suite-sql-eval's rule: ``City, Country`` for
    ``Country, City``); with more than :data:`PERMUTED_COLUMNS` columns, only in their own order.

    >>> results_match_any_columns([("Oslo", "NO")], [("NO", "Oslo")], ordered=False)
    True
    """
    import itertools

    if results_match(gold, got, ordered, tolerance):
        return True
    width = len(got[0]) if got else 0
    if not gold or width < 2 or width > PERMUTED_COLUMNS or len(gold[0]) != width:
        return False
    for order in itertools.islice(itertools.permutations(range(width)), 1, None):
        if results_match(gold, [tuple(row[i] for i in order) for row in got], ordered, tolerance):
            return True
    return False


__all__ = ["TOLERANCE", "SqlRow", "SqlRowError", "check_sql_rows", "extract_sql", "gold_is_ordered", "gold_rows",
           "normalise_sql_row", "results_match", "results_match_any_columns", "values_equal"]
