"""code.sql_match against test-suite-sql-eval (Spider's execution-accuracy checker) on real Spider dev rows.

tests/code/data/spider/mined.jsonl (bench/sql/mine.py): 190 rows of test-suite-sql-eval's gold.txt/predict.txt on
three Spider databases, each with the peer's own verdict (its ``result_eq``) and the project, path and commit of
the row and of its database. The one place the two rules differ: the peer accepts the prediction's columns in
another order (line 29: ``Country, City`` for ``City, Country``); ``any_column_order=True`` takes that rule too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grpo_rewards_code.sql import SqlMatch

DATA = Path(__file__).parent / "data" / "spider"
ROWS = [json.loads(line) for line in (DATA / "mined.jsonl").read_text(encoding="utf-8").splitlines()]
#: lines of gold.txt where the peer pays a prediction whose columns come in another order than the gold's
COLUMN_ORDER = {29}


def fenced(query: str) -> str:
    return f"```sql\n{query}\n```"


def test_the_mined_rows_name_their_sources():
    assert len(ROWS) == 190 and sum(r["peer_match"] for r in ROWS) == 53
    assert {r["db_id"] for r in ROWS} == {"flight_2", "pets_1", "tvshow"}
    assert all(r["project"] == "taoyds/test-suite-sql-eval" and len(r["commit"]) == 40 for r in ROWS)
    assert all(r["database"]["project"] == "hyukkyukang/text2SQL" and len(r["database"]["commit"]) == 40 for r in ROWS)


def _agreement(rows, score, gold=True):
    disagree = []
    for row in rows:
        if gold:  # the gold is its own answer (a wider matching rule cannot change that: checked once a row)
            assert score(fenced(row["query"]), **row) == (1.0, "matched"), row["line"]
        value, label = score(fenced(row["predicted"]), **row)
        assert label in ("matched", "mismatched", "sql_error"), (row["line"], label)
        if (value == 1.0) != row["peer_match"]:
            disagree.append(row["line"])
    return disagree


#: the rows the fast lane checks; the slow lane checks the others, so a full run checks each row once
SAMPLE = [r for r in ROWS if r["line"] % 6 == 0 or r["line"] in COLUMN_ORDER]


def test_a_sample_agrees_with_the_peer_except_on_column_order(sandbox):
    assert len(SAMPLE) >= 30
    assert set(_agreement(SAMPLE, SqlMatch(database_dir=str(DATA / "database")))) == COLUMN_ORDER
    assert _agreement(SAMPLE, SqlMatch(database_dir=str(DATA / "database"), any_column_order=True), gold=False) == []


@pytest.mark.slow
def test_every_row_the_sample_leaves_out_agrees_with_the_peer(sandbox):
    rest = [r for r in ROWS if r not in SAMPLE]
    assert len(rest) + len(SAMPLE) == len(ROWS) == 190
    assert _agreement(rest, SqlMatch(database_dir=str(DATA / "database"))) == []
    assert _agreement(rest, SqlMatch(database_dir=str(DATA / "database"), any_column_order=True), gold=False) == []


def test_the_databases_of_one_folder_share_one_warm_sandbox(sandbox):
    from grpo_rewards_code.sql_rows import normalise_sql_row
    from grpo_rewards_code.warm import thread_sandboxes

    folder = str((DATA / "database").resolve())
    score = SqlMatch(database_dir=folder)
    first = {r["db_id"]: r for r in ROWS}
    assert normalise_sql_row(first["pets_1"], folder).folder == folder  # the folder is bound, not each file
    score(fenced(first["pets_1"]["query"]), **first["pets_1"])
    before = set(thread_sandboxes())
    for db_id in ("flight_2", "tvshow", "pets_1"):
        assert score(fenced(first[db_id]["query"]), **first[db_id]) == (1.0, "matched")
    assert set(thread_sandboxes()) == before
