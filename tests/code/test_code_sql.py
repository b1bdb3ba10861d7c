"""code.sql_match on real SQLite databases: matched, mismatched, ordering, tolerance, sql_error, timeout, no_sql,
the row forms (native, Spider, BIRD, gold rows), and the environment's failures as None with a warning."""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import sqlite3
import warnings

import pytest

from grpo_rewards import get_reward
from grpo_rewards_code.sql import SqlMatch
from grpo_rewards_code.sql_rows import extract_sql, gold_is_ordered, results_match, values_equal


def fenced(query: str) -> str:
    return f"Here it is:\n```sql\n{query}\n```"


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    """A real database file: Spider's layout (<dir>/<db_id>/<db_id>.sqlite)."""
    folder = tmp_path_factory.mktemp("databases")
    (folder / "shop").mkdir()
    path = folder / "shop" / "shop.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT, city TEXT);
        CREATE TABLE products(id INTEGER PRIMARY KEY, name TEXT, price REAL, photo BLOB);
        INSERT INTO customers VALUES (1, 'Ada', 'Oslo'), (2, 'Ben', 'Lyon'), (3, 'Chen', 'Oslo'), (4, 'Dana', NULL);
        INSERT INTO products VALUES (1, 'lamp', 19.99, x'00ff'), (2, 'desk', 120.5, NULL), (3, 'mug', 4.1, x'');
    """)
    conn.commit()
    conn.close()
    return path


@pytest.fixture()
def score(sandbox):
    return SqlMatch(time_limit=2.0)


def test_an_equivalent_query_is_matched(score, shop):
    row = {"db_path": str(shop), "query": "SELECT name FROM customers WHERE city = 'Oslo'"}
    assert score(fenced("SELECT c.name FROM customers AS c WHERE c.city IN ('Oslo')"), **row) == (1.0, "matched")


def test_other_rows_are_mismatched(score, shop):
    row = {"db_path": str(shop), "query": "SELECT name FROM customers WHERE city = 'Oslo'"}
    assert score(fenced("SELECT name FROM customers"), **row) == (0.0, "mismatched")
    assert score(fenced("SELECT name, city FROM customers WHERE city = 'Oslo'"), **row) == (0.0, "mismatched")


def test_rows_are_a_multiset_duplicates_count(score, shop):
    row = {"db_path": str(shop), "query": "SELECT city FROM customers WHERE city IS NOT NULL"}
    assert score(fenced("SELECT DISTINCT city FROM customers WHERE city IS NOT NULL"), **row) == (0.0, "mismatched")
    assert score(fenced("SELECT city FROM customers WHERE city NOT NULL ORDER BY city DESC"), **row) == (1.0, "matched")


def test_order_counts_only_when_the_gold_orders_its_rows(score, shop):
    ordered = {"db_path": str(shop), "query": "SELECT name FROM products ORDER BY price"}
    assert score(fenced("SELECT name FROM products ORDER BY price DESC"), **ordered) == (0.0, "mismatched")
    assert score(fenced("SELECT name FROM products ORDER BY price ASC"), **ordered) == (1.0, "matched")
    inner = {"db_path": str(shop), "query": "SELECT name FROM (SELECT name FROM products ORDER BY price)"}
    assert score(fenced("SELECT name FROM products ORDER BY price DESC"), **inner) == (1.0, "matched")


def test_floats_match_within_the_tolerance_integers_exactly(score, shop):
    row = {"db_path": str(shop), "query": "SELECT AVG(price) FROM products"}
    assert score(fenced("SELECT SUM(price) / COUNT(*) FROM products"), **row) == (1.0, "matched")
    assert score(fenced("SELECT ROUND(AVG(price), 2) FROM products"), **row) == (0.0, "mismatched")
    assert SqlMatch(tolerance=0.01)(fenced("SELECT ROUND(AVG(price), 2) FROM products"), **row) == (1.0, "matched")
    count = {"db_path": str(shop), "query": "SELECT COUNT(*) FROM customers"}
    assert score(fenced("SELECT 4.0"), **count) == (1.0, "matched")
    assert score(fenced("SELECT 4.000001"), **count) == (0.0, "mismatched")
    assert score(fenced("SELECT '4'"), **count) == (0.0, "mismatched")


def test_nulls_and_blobs_compare_as_values(score, shop):
    row = {"db_path": str(shop), "query": "SELECT photo FROM products"}
    assert score(fenced("SELECT photo FROM products ORDER BY id DESC"), **row) == (1.0, "matched")
    assert score(fenced("SELECT hex(photo) FROM products"), **row) == (0.0, "mismatched")


def test_a_query_sqlite_refuses_is_sql_error(score, shop):
    row = {"db_path": str(shop), "query": "SELECT name FROM customers"}
    assert score(fenced("SELEC name FROM customers"), **row) == (0.0, "sql_error")
    assert score(fenced("SELECT name FROM clients"), **row) == (0.0, "sql_error")
    assert score(fenced("SELECT name FROM customers; SELECT 1"), **row) == (0.0, "sql_error")


def test_a_query_of_only_comments_or_semicolons_is_sql_error_even_against_an_empty_gold(score, shop):
    empty = {"db_path": str(shop), "query": "SELECT name FROM customers WHERE city = 'Paris'"}  # no rows
    assert score(fenced("SELECT name FROM customers WHERE 0"), **empty) == (1.0, "matched")
    for query in (";", " ; ;", "-- the names", "/* nothing */;"):
        assert score(fenced(query), **empty) == (0.0, "sql_error"), query
        assert score.explain(fenced(query), **empty)["why"] == (
            "EmptyQuery: no statement to run: the query is only comments or semicolons")
    with pytest.warns(RuntimeWarning, match="gold_error"):
        assert score(fenced("SELECT 1"), db_path=str(shop), query="-- none") == (None, "gold_error")


def test_a_query_past_its_time_limit_is_timeout_and_the_file_is_untouched(sandbox, shop):
    before = hashlib.sha256(shop.read_bytes()).hexdigest()
    row = {"db_path": str(shop), "query": "SELECT COUNT(*) FROM customers"}
    bomb = "SELECT COUNT(*) FROM customers a, customers b, customers c, customers d, customers e, customers f, " \
           "customers g, customers h, customers i, customers j, customers k, customers l, customers m, customers n"
    assert SqlMatch(time_limit=0.5)(fenced(bomb), **row) == (0.0, "timeout")
    assert SqlMatch()(fenced("DROP TABLE customers"), **row) == (0.0, "sql_error")
    assert hashlib.sha256(shop.read_bytes()).hexdigest() == before


def test_a_completion_without_a_query_is_no_sql(score, shop):
    row = {"db_path": str(shop), "query": "SELECT COUNT(*) FROM customers"}
    assert score("There are four customers.", **row) == (0.0, "no_sql")
    assert score("```python\nprint(4)\n```", **row) == (0.0, "no_sql")
    assert score("```sql\n\n```", **row) == (0.0, "no_sql")
    assert score("SELECT COUNT(*) FROM customers", **row) == (1.0, "matched")  # the bare reply


def test_more_rows_than_max_rows_is_mismatched(sandbox, shop):
    row = {"db_path": str(shop), "query": "SELECT 1"}
    assert SqlMatch(max_rows=3)(fenced("SELECT name FROM customers"), **row) == (0.0, "mismatched")
    assert SqlMatch(max_rows=3).explain(fenced("SELECT name FROM customers"), **row)["why"] == "more than 3 rows"


def test_a_result_past_the_sandboxs_output_limit_is_mismatched_and_says_so_not_more_rows(sandbox, shop):
    # one row of 70 MB: it was explained as "more than 10000 rows"
    row = {"db_path": str(shop), "query": "SELECT 1"}
    found = SqlMatch().explain(fenced("SELECT printf('%.*c', 70000000, 'x')"), **row)
    assert (found["value"], found["label"], found["why"]) == (0.0, "mismatched", "more than 64 MiB of text")


def test_spider_and_bird_rows_read_their_database_from_database_dir(sandbox, shop):
    spider = {"db_id": "shop", "query": "SELECT name FROM products WHERE price > 10", "question": "?"}
    bird = {"db_id": "shop", "SQL": "SELECT name FROM products WHERE price > 10", "evidence": ""}
    score = SqlMatch(database_dir=str(shop.parent.parent))
    answer = fenced("SELECT name FROM products WHERE price >= 19.99")
    assert score(answer, **spider) == (1.0, "matched")
    assert score(answer, **bird) == (1.0, "matched")
    assert SqlMatch()(answer, **spider, database_dir=str(shop.parent.parent)) == (1.0, "matched")


def test_gold_rows_in_result_and_the_database_as_sql_text(score):
    row = {"db_sql": "CREATE TABLE t(a INTEGER, b TEXT); INSERT INTO t VALUES (1, 'x'), (2, 'y');",
           "result": [[2, "y"], [1, "x"]]}
    assert score(fenced("SELECT a, b FROM t"), **row) == (1.0, "matched")
    assert score(fenced("SELECT a FROM t"), **row) == (0.0, "mismatched")
    assert score(fenced("SELECT b FROM t"), **{**row, "result": ["x", "y"]}) == (1.0, "matched")


def test_a_gold_boolean_is_sqlites_one_or_zero(score):
    # SQLite has no boolean (TRUE is 1): a JSON true in the gold was never met, 0.0 on every completion
    row = {"db_sql": "CREATE TABLE t(a INTEGER); INSERT INTO t VALUES (1), (5);", "result": "[[false], [true]]"}
    assert score(fenced("SELECT a > 3 FROM t"), **row) == (1.0, "matched")
    assert score(fenced("SELECT a < 3 AND a > 3 FROM t"), **row) == (0.0, "mismatched")


def test_a_missing_database_is_none_with_a_warning(score, tmp_path):
    row = {"db_path": str(tmp_path / "absent.sqlite"), "query": "SELECT 1"}
    with pytest.warns(RuntimeWarning, match="no_database: no database file"):
        assert score(fenced("SELECT 1"), **row) == (None, "no_database")
    with pytest.warns(RuntimeWarning, match="no_database"):
        assert score(fenced("SELECT 1"), db_sql="CREATE TABLE (", query="SELECT 1") == (None, "no_database")
    with pytest.warns(RuntimeWarning, match="bad_row: row names db_id 'shop' but no database_dir"):
        assert score(fenced("SELECT 1"), db_id="shop", query="SELECT 1") == (None, "bad_row")
    with pytest.warns(RuntimeWarning, match=r"bad_row: result is text that is not JSON rows: JSON nested too deeply"):
        assert score(fenced("SELECT 1"), db_sql="CREATE TABLE t(a INTEGER);", result="[" * 100_000) == (None, "bad_row")


def test_a_result_whose_cell_is_a_list_or_an_object_is_a_bad_row_named_before_training(score):
    # {"a": 1} as a cell raised TypeError out of the comparison; [1, 2] could never be matched (0.0 on every
    # completion); check_rows passed both
    row = {"db_sql": "CREATE TABLE t(a INTEGER); INSERT INTO t VALUES (1);"}
    why = "result: row 0 has a cell that is a {}, not a SQL value (a number, text or null)"
    for result, kind in (('[[{"a": 1}]]', "dict"), ([[[1, 2]]], "list")):
        with pytest.warns(RuntimeWarning, match=re.escape("bad_row: " + why.format(kind))):
            assert score(fenced("SELECT a FROM t"), **row, result=result) == (None, "bad_row")
    assert SqlMatch.check_rows([{**row, "result": "[[1], [[1]]]"}]) == [
        "row 0: result: row 1 has a cell that is a list, not a SQL value (a number, text or null)"]


def test_a_gold_query_that_fails_is_gold_error_not_a_zero(score, shop):
    with pytest.warns(RuntimeWarning, match="gold_error"):
        assert score(fenced("SELECT 1"), db_path=str(shop), query="SELECT * FROM nowhere") == (None, "gold_error")


def test_through_get_reward_a_batch_gets_one_value_per_completion(sandbox, shop):
    reward = get_reward("code.sql_match", time_limit=2.0)
    completions = [fenced("SELECT COUNT(*) FROM customers"), "four", fenced("SELECT 3")]
    values = reward(prompts=["p"] * 3, completions=completions, db_path=[str(shop)] * 3,
                    query=["SELECT COUNT(*) FROM customers"] * 3)
    assert values == [1.0, 0.0, 0.0]
    assert pickle.loads(pickle.dumps(SqlMatch(time_limit=3.0))).time_limit == 3.0


def test_check_rows_names_each_unreadable_row(tmp_path, sandbox):
    rows = [{"db_sql": "CREATE TABLE t(a);", "query": "SELECT a FROM t"}, {"db_sql": "CREATE TABLE t(a);"},
            {"db_path": str(tmp_path / "none.sqlite"), "query": "SELECT 1"}, {"db_id": "x", "SQL": "SELECT 1"},
            {"db_id": "x", "database_dir": str(tmp_path), "SQL": "SELECT 1"}]
    assert SqlMatch.check_rows(rows) == [
        "row 1: row has no gold: a query (query, BIRD's SQL) or its rows (result)",
        f"row 2: no database file {tmp_path / 'none.sqlite'}", f"row 4: no database file {tmp_path / 'x' / 'x.sqlite'}"]


def test_a_row_without_database_and_gold_is_another_tasks_row_none_quietly_and_training_takes_it(sandbox):
    # before: bad_row with a warning per sample, and training refused a dataset mixing SQL rows with other tasks'
    rows = [{"db_sql": "CREATE TABLE t(a);", "query": "SELECT a FROM t"}, {"db_sql": None, "query": None, "x": 1}]
    assert SqlMatch.check_rows(rows) == []
    assert SqlMatch.check_rows(rows[1:] * 3) == [
        "every row is one the reward does not score (row 0: row has no database and no gold: expected db_path, db_sql, "
        "db_id, query, SQL, result): it applies to none of the 3 rows"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert SqlMatch()("```sql\nSELECT 1\n```", **rows[1]) == (None, "no_gold")
    assert SqlMatch.check_rows([{"db_sql": "CREATE TABLE t(a);"}] * 9) == [  # at most five lines, as every check_rows
        "row 0: row has no gold: a query (query, BIRD's SQL) or its rows (result)", *(
            f"row {i}: row has no gold: a query (query, BIRD's SQL) or its rows (result)" for i in range(1, 5))]


def test_extract_sql_reads_the_last_sql_block_else_an_untagged_one_else_a_bare_query():
    assert extract_sql("```sql\nSELECT 1\n```\n```sql\nSELECT 2;\n```") == "SELECT 2;"
    assert extract_sql("```\nSELECT 3\n```") == "SELECT 3"
    assert extract_sql("```sqlite\nSELECT 4\n```\n```text\n4\n```") == "SELECT 4"
    assert extract_sql("  with x as (select 1) select * from x") == "with x as (select 1) select * from x"
    assert extract_sql("Answer: SELECT 1") is None


def test_gold_is_ordered_by_its_outermost_order_by():
    assert gold_is_ordered("SELECT a FROM t UNION SELECT b FROM u ORDER BY 1") is True
    assert gold_is_ordered("WITH x AS (SELECT a FROM t ORDER BY a) SELECT * FROM x") is False
    assert gold_is_ordered("SELECT a FROM t ORDER BY a LIMIT 1") is True
    assert gold_is_ordered("SELECT a FROM t WHERE b IN (SELECT b FROM u ORDER BY b LIMIT 2)") is False


def test_values_equal_and_results_match_exactly():
    assert values_equal(3, 3.0) and not values_equal(3, 3.0000001) and not values_equal(1000000007, 1000000008.0)
    assert values_equal(0.1 + 0.2, 0.3) and not values_equal(0.3, 0.3001)
    assert not values_equal("3", 3) and not values_equal(None, 0) and values_equal(None, None)
    assert values_equal(float("nan"), float("nan"))
    # sorting puts 1.0000000001 after 1.0 in one result and before it in the other: matched pair by pair
    assert results_match([(1.0, "b"), (1.0000000001, "a")], [(1.0000000001, "b"), (1.0, "a")], ordered=False)
    assert not results_match([(1,), (1,), (2,)], [(1,), (2,), (2,)], ordered=False)


def test_a_gold_integer_past_a_floats_range_is_sorted_by_value_not_raised():
    # a gold cell of 4,000 digits (JSON allows it) raised OverflowError out of the sort key: out of code.sql_match,
    # and out of tools.sqlite's get_reward into TRL's loop
    big = 10 ** 4000
    assert results_match([(big,), (1,), (big + 1,)], [(big + 1,), (big,), (1,)], ordered=False, tolerance=0)
    assert not results_match([(big,), (1,)], [(big + 1,), (1,)], ordered=False, tolerance=0)
    assert not results_match([(big,), (2.5,)], [(float("inf"),), (2.5,)], ordered=False)


def test_a_sandbox_that_cannot_start_is_sandbox_error_none_with_a_warning(monkeypatch):
    monkeypatch.setenv("GRPO_REWARDS_CODE_SANDBOX", "no-such-backend")
    row = {"db_sql": "CREATE TABLE t(a);", "query": "SELECT 1"}
    with pytest.warns(RuntimeWarning, match="sandbox_error: GRPO_REWARDS_CODE_SANDBOX must be auto"):
        assert SqlMatch()(fenced("SELECT 1"), **row) == (None, "sandbox_error")
    assert SqlMatch.check_rows([row]) == ["GRPO_REWARDS_CODE_SANDBOX must be auto, bwrap, unshare or unsafe, "
                                          "not 'no-such-backend'"]


def test_a_database_in_a_private_folder_is_bound_alone(shop):
    from grpo_rewards_code.sql_rows import normalise_sql_row

    shop.parent.parent.chmod(0o700)  # as pytest's own folders are: the sandbox's user could not search it
    row = normalise_sql_row({"db_id": "shop", "query": "SELECT 1"}, str(shop.parent.parent))
    assert (row.db_path, row.folder) == (str(shop.resolve()), str(shop.resolve()))


def test_a_database_directly_in_tmp_is_bound_alone_and_scored(score, shop):
    # /tmp/x.sqlite: binding its folder would lay the host's /tmp over the sandbox's own (visible to the program,
    # and the warm sandbox, failing to clean it, never started: None, sandbox_error, on every row)
    import tempfile

    from grpo_rewards_code.sql_rows import normalise_sql_row

    if os.path.realpath(tempfile.gettempdir()) != "/tmp":
        pytest.skip("the temporary folder is not /tmp here")
    handle, name = tempfile.mkstemp(prefix="grpo-rewards-test-", suffix=".sqlite", dir="/tmp")
    try:
        with os.fdopen(handle, "wb") as fh:
            fh.write(shop.read_bytes())
        os.chmod(name, 0o644)
        row = {"db_path": name, "query": "SELECT name FROM customers WHERE city = 'Oslo'"}
        assert normalise_sql_row(row).folder == name
        assert score(fenced("SELECT name FROM customers WHERE city = 'Oslo' ORDER BY id DESC"), **row) == (1.0, "matched")
        assert score(fenced("SELECT name FROM customers"), **row) == (0.0, "mismatched")
    finally:
        os.unlink(name)
