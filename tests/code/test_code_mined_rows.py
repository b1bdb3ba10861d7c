"""Real rows, verbatim, read by the normalisers and scored with exact results (issue 45): Open-R1's
``verification_info`` rows (tests/code/data/open_r1) and BIRD dev rows with ``SQL``, ``db_id``, ``question``
(tests/code/data/bird), each with the project, path and commit it came from (the folders' SOURCES.md).

BIRD's databases are not in any reachable repository: the BIRD rows run against stand-in databases with BIRD's
table and column names and invented values (data/bird/*.sql), so the exact results below are those of the
stand-ins; what is real is the rows, their gold queries and the predictions a model made for them.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from grpo_rewards_code import TestsPassed
from grpo_rewards_code.formats import StdioTest, normalise_tests
from grpo_rewards_code.sql import SqlMatch
from grpo_rewards_code.sql_rows import check_sql_rows, normalise_sql_row

DATA = Path(__file__).parent / "data"
OPEN_R1 = [json.loads(line) for line in (DATA / "open_r1" / "rows.jsonl").read_text(encoding="utf-8").splitlines()]
BIRD = {r["row"]["question_id"]: r for r in
        (json.loads(line) for line in (DATA / "bird" / "rows.jsonl").read_text(encoding="utf-8").splitlines())}
#: BIRD's prediction files end each query with a tab, this marker, a tab and the db_id
BIRD_MARK = "\t----- bird -----\t"


def test_every_row_names_its_project_path_and_commit():
    assert [(r["project"], r["path"], r["commit"][:7]) for r in OPEN_R1] == [
        ("huggingface/open-r1", "tests/test_local_provider.py", "d264a69"),
        ("huggingface/open-r1", "tests/test_local_provider.py", "d264a69"),
        ("modelscope/ms-swift", "docs/source_en/BestPractices/GRPO-Code-Training.md", "3602360")]
    assert sorted(BIRD) == [0, 1, 90, 118]
    assert {(r["project"], r["path"], r["commit"]) for r in BIRD.values()} == {
        ("shovon095/Data", "meh.py", "f46e49f6c01a14867ce5f2c6593ce0e658e7f8c0")}


# -- Open-R1 ------------------------------------------------------------------------------------------------
def test_open_r1s_own_rows_get_the_rewards_its_test_asserts(sandbox):
    for mined in OPEN_R1[:2]:
        assert normalise_tests(mined["row"]) == [StdioTest("", "hello")]
        value, label = TestsPassed()(mined["completion"], **mined["row"])
        assert (value, label) == (mined["expected_reward"], "passed" if value == 1.0 else "failed")


#: a solution of the quoted problem (Codeforces 1259D): reverse the first reversible words of the larger kind
WORDS = """```python
import sys
data = sys.stdin.read().split()
t, pos, out = int(data[0]), 1, []
for _ in range(t):
    n = int(data[pos]); words = data[pos + 1:pos + 1 + n]; pos += 1 + n
    seen = set(words)
    zo = [i for i, w in enumerate(words) if w[0] == "0" and w[-1] == "1"]
    oz = [i for i, w in enumerate(words) if w[0] == "1" and w[-1] == "0"]
    if not zo and not oz and any(w[0] == w[-1] == "0" for w in words) and any(w[0] == w[-1] == "1" for w in words):
        out.append("-1")
        continue
    if len(zo) < len(oz):
        zo, oz = oz, zo
    picked = [i + 1 for i in zo if words[i][::-1] not in seen][:(len(zo) - len(oz)) // 2]
    out += [str(len(picked)), " ".join(map(str, picked))]
print("\\n".join(out))
```"""


def test_a_quoted_open_r1_row_is_read_verbatim_and_judged_exactly(sandbox):
    row = OPEN_R1[2]["row"]
    tests = normalise_tests(row)
    assert tests == [StdioTest("4\n4\n0001\n1000\n0011\n0111\n3\n010\n101\n0\n2\n00000\n00001\n4\n01\n001\n0001\n00001\n",
                               "1\n3 \n-1\n0\n\n2\n1 2 \n")]
    assert TestsPassed()(WORDS, **row) == (1.0, "passed")
    assert TestsPassed()(WORDS.replace("[:(len(zo)", "[:1 + (len(zo)"), **row) == (0.0, "failed")  # one too many
    assert TestsPassed(language="cpp")(WORDS, **row) == (0.0, "wrong_language")


# -- BIRD ---------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def bird_dir(tmp_path_factory):
    """``<dir>/<db_id>/<db_id>.sqlite`` (BIRD's layout), built from the stand-ins' SQL."""
    folder = tmp_path_factory.mktemp("bird")
    for db_id in ("financial", "california_schools"):
        (folder / db_id).mkdir()
        with sqlite3.connect(folder / db_id / f"{db_id}.sqlite") as connection:
            connection.executescript((DATA / "bird" / f"{db_id}.sql").read_text(encoding="utf-8"))
        connection.close()
    return str(folder)


def fenced(query: str) -> str:
    return f"```sql\n{query}\n```"


def test_the_normaliser_reads_birds_rows(bird_dir):
    for qid, mined in BIRD.items():
        row = mined["row"]
        read = normalise_sql_row(row, bird_dir)
        assert read.query == row["SQL"], qid
        assert read.db_path == f"{bird_dir}/{row['db_id']}/{row['db_id']}.sqlite"
    assert check_sql_rows([m["row"] for m in BIRD.values()], bird_dir) == []


@pytest.mark.parametrize(("qid", "predicted"), [
    (0, (1.0, "matched")),  # MAX of the stored percentage: the gold's count over enrollment, another way
    (1, (0.0, "mismatched")),  # three columns for the gold's one, and StatusType is never 'Continuation'
    (90, (0.0, "mismatched")),  # A2 (the district's name) = 'Prague' where the gold reads A3 (the region): 0, not 3
    (118, (0.0, "mismatched")),  # status 'A' for the gold's 'C': 25.0, not 75.0
])
def test_birds_gold_matches_itself_and_the_mined_predictions_score_exactly(sandbox, bird_dir, qid, predicted):
    mined = BIRD[qid]
    score = SqlMatch(database_dir=bird_dir)
    assert score(fenced(mined["row"]["SQL"]), **mined["row"]) == (1.0, "matched")
    query, _, db_id = mined["predicted"].partition(BIRD_MARK)
    assert db_id == mined["row"]["db_id"]
    assert score(fenced(query), **mined["row"]) == predicted


def test_a_bird_answer_written_another_way_matches(sandbox, bird_dir):
    score = SqlMatch(database_dir=bird_dir)
    other = ("SELECT COUNT(DISTINCT account_id) FROM loan WHERE account_id IN (SELECT account_id FROM account "
             "JOIN district USING (district_id) WHERE A3 = 'Prague')")
    assert score(fenced(other), **BIRD[90]["row"]) == (1.0, "matched")
    ratio = "SELECT 100.0 * SUM(CASE WHEN status = 'C' THEN 1 ELSE 0 END) / COUNT(*) FROM loan WHERE amount < 100000"
    assert score(fenced(ratio), **BIRD[118]["row"]) == (1.0, "matched")
    assert score(fenced("SELECT 75.0"), **BIRD[118]["row"]) == (1.0, "matched")  # the gold's literal value
