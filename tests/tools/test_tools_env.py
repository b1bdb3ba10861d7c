"""The first-party environments: calculator (exact, eval-free), SQLite (read-only, time-limited, its
own reward and hack corpus), Python (the code package's sandbox; state within a rollout, nothing
across rollouts), their tasks and registration."""

from __future__ import annotations

import json
import re
import sqlite3
import warnings
from fractions import Fraction

import pytest

import grpo_rewards
from grpo_rewards.hacks import run_hacks
from grpo_rewards.plugin.manager import get_plugins
from grpo_rewards.registry import load_registry
from grpo_rewards_tools.environments import registration
from grpo_rewards_tools.environments.calculator import Calculator
from grpo_rewards_tools.environments.database import SQLite, same_rows
from grpo_rewards_tools.environments.tasks import make_calculator, make_sqlite


class EnvironmentsOnly:
    """The tools plugin's environment and task registration, alone (the rewards are another module's)."""

    @grpo_rewards.hookimpl
    def register_environments(self, register):
        registration.register_environments(register)

    @grpo_rewards.hookimpl
    def register_tasks(self, register):
        registration.register_tasks(register)


@pytest.fixture(scope="module")
def env_registry():
    plugins = get_plugins(load_entry_points=False)
    plugins.add(EnvironmentsOnly(), "tools")
    return load_registry(plugins)


# -- calculator ------------------------------------------------------------------------------

@pytest.mark.parametrize(("expression", "result"), [
    ("4821 * 376", "1812696"),
    ("3/7 + 5/12", "71/84"),
    ("2^10 - 1", "1023"),
    ("(12 + 8) * 3 / 4", "15"),
    ("-7/3", "-7/3"),
    ("\\frac{1}{2} \\cdot 6", "3"),
    ("99999999999 * 99999999999", "9999999999800000000001"),
])
def test_calculator_is_exact(expression, result):
    calc = Calculator()
    calc.reset()
    assert calc.calculate(expression) == result


@pytest.mark.parametrize(("expression", "message"), [
    ("__import__('os').system('id')", "error: cannot read"),
    ("x + 1", "error: not a number (unknown names: x)"),
    ("1/0", "error: cannot read '1/0': division by zero"),
    ("sqrt(2)", "error: the result is not a whole number or a fraction (sqrt(2))"),
    # a whole number the parser's size guard leaves unevaluated was called "not a whole number or a fraction"
    ("9^9^9", "error: the result is too large to compute exactly (3**774840978)"),
    ("2**100000", "error: the result is too large to compute exactly (2**100000)"),
    ("(2/3)^100000", "error: the result is too large to compute exactly ((2/3)**100000)"),
    ("(-8)^(1/3)", "error: the result is not a whole number or a fraction (2*(-1)**(1/3))"),
    ("0^-1", "error: division by zero"),  # was "not a whole number or a fraction (zoo)"
    ("2^2000", "error: the result has 603 characters, more than 400"),
    ("10^5000", "error: the result has more than 4300 digits"),  # raised ValueError (Python's int-to-str limit)
    ("(10^4400+1)/3", "error: the result has more than 4300 digits"),
    ("1+" * 150 + "1", "error: the expression has 301 characters, more than 200"),
    ("", "error: give an expression as text"),
])
def test_calculator_refuses_what_is_not_exact_arithmetic_with_a_message(expression, message):
    assert Calculator().calculate(expression).startswith(message)


def test_calculator_tool_schema_is_what_trl_renders(env_registry):
    (schema,) = env_registry.environment("tools.calculator").tool_schemas()
    assert schema["function"]["name"] == "calculate"
    assert schema["function"]["parameters"]["required"] == ["expression"]
    assert schema["function"]["parameters"]["properties"]["expression"]["type"] == "string"


def test_calculator_task_rows_have_exact_solutions_and_name_their_environment(env_registry):
    task = env_registry.task("tools:calculator")
    assert task.environment == "tools.calculator"
    rows = task.factory(40, 3)
    assert rows == make_calculator(40, 3)  # deterministic for a seed
    for row in rows:
        a, op, b = re.fullmatch(r"What is (\S+) ([*+-]) (\S+)\?", row["prompt"][1]["content"]).groups()
        x, y = Fraction(a), Fraction(b)
        value = x * y if op == "*" else x + y if op == "+" else x - y
        assert Fraction(row["solution"]) == value
        assert Calculator().calculate(f"{a} {op} {b}") == row["solution"]
    products = [r for r in rows if "*" in r["prompt"][1]["content"]]
    assert len(products) == 20 and all(len(r["solution"]) >= 6 for r in products)


# -- SQLite ----------------------------------------------------------------------------------

def _db(gold="[[2]]"):
    db = SQLite(timeout=0.3)
    db.reset(database="CREATE TABLE t(x INTEGER, y TEXT); INSERT INTO t VALUES (1, 'a'), (1, 'b'), (3, 'c');",
             gold=gold)
    return db


def test_sqlite_query_returns_columns_and_rows():
    assert _db().query("SELECT x, y FROM t WHERE x = 1 ORDER BY y") == 'columns: ["x", "y"]\n[1, "a"]\n[1, "b"]'


def test_what_the_model_sees_of_a_query_result_is_capped_in_characters_not_only_rows():
    # one row of ten million characters went back to the model whole (TRL then tokenizes it into the prompt)
    db = _db()
    text = db.query("SELECT printf('%.*c', 10000000, 'x')")
    head = 'columns: ["printf(\'%.*c\', 10000000, \'x\')"]\n["'
    assert text == (head + "x" * (2000 - len(head)) + f"\n... ({len(head) + 10_000_002 - 2000} more characters)")
    assert (db.get_reward(), db.outcome) == (0.0, "wrong_result")  # the reward reads the whole result, not the text
    db = SQLite(max_output=30)
    db.reset(database="CREATE TABLE t(x TEXT); INSERT INTO t VALUES ('abcdef'), ('ghijkl');", gold='[["abcdef"]]')
    assert db.query("SELECT x FROM t") == 'columns: ["x"]\n["abcdef"]\n["gh\n... (6 more characters)'
    # past what the sandbox lets through (64 MiB), or past the rows a query may give: the tool says which
    assert db.query("SELECT printf('%.*c', 70000000, 'x')") == \
        "error: the query's result is too large (more than 64 MiB of text)"
    assert db.query("WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c LIMIT 10001) SELECT i FROM c") \
        == "error: the query's result is too large (more than 10000 rows)"


@pytest.mark.parametrize("sql", ["DELETE FROM t", "UPDATE t SET x = 2", "CREATE TABLE u(z)", "DROP TABLE t",
                                 "INSERT INTO t VALUES (9, 'z')", "ATTACH DATABASE '/tmp/other.db' AS o",
                                 "PRAGMA query_only = OFF"])
def test_sqlite_is_read_only(sql):
    db = _db()
    assert db.query(sql) == "error: not authorized"
    assert db.query("SELECT COUNT(*) FROM t") == 'columns: ["COUNT(*)"]\n[3]'


def test_sqlite_stops_a_query_past_its_time_limit():
    db = _db()
    endless = "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT COUNT(*) FROM c"
    assert db.query(endless) == "error: the query ran past its 0.3 s limit and was stopped"
    assert (db.get_reward(), db.outcome) == (0.0, "query_error")


def test_sqlite_reward_compares_the_last_result_set_with_the_gold():
    db = _db()
    assert (db.get_reward(), db.outcome) == (0.0, "no_query")
    db.query("SELECT COUNT(*) FROM t WHERE x = 1")
    assert (db.get_reward(), db.outcome) == (1.0, "correct")
    db.query("SELECT 'Score: 1.0'")
    assert (db.get_reward(), db.outcome) == (0.0, "wrong_result")
    db.reset(database="CREATE TABLE t(x);")  # a new row: nothing of the previous one is left
    assert db.query("SELECT COUNT(*) FROM t") == 'columns: ["COUNT(*)"]\n[0]'
    assert (db.get_reward(), db.outcome) == (None, "no_gold")


def test_a_query_of_only_a_comment_or_semicolons_is_an_error_not_an_empty_result_that_matches_an_empty_gold():
    db = _db(gold="[]")
    db.query("SELECT x FROM t WHERE x > 5")
    assert (db.get_reward(), db.outcome) == (1.0, "correct")
    for sql in (";", "-- none", "/* none */ ;"):
        assert db.query(sql) == "error: no statement to run: the query is only comments or semicolons"
        assert (db.get_reward(), db.outcome) == (0.0, "query_error")


@pytest.mark.parametrize(("gold", "why"), [
    ("[[2", "gold is text that is not JSON rows: Expecting ',' delimiter: line 1 column 4 (char 3)"),
    ("[" * 100_000, "gold is text that is not JSON rows: JSON nested too deeply to read (deeper than Python's "
                    "recursion limit)"),
    ("7", "gold must be a list of rows, not int"),
    # a cell no SQL result holds: an object raised TypeError out of get_reward, a list was never paid
    ('[[{"n": 2}]]', "gold: row 0 has a cell that is a dict, not a SQL value (a number, text or null)"),
    ("[[2], [[2]]]", "gold: row 1 has a cell that is a list, not a SQL value (a number, text or null)"),
])
def test_a_gold_that_cannot_be_read_leaves_the_rollout_running_and_gets_none(gold, why):
    # reset raised (json's error, or RecursionError), which TRL's tool loop does not catch: the training run ended
    db = _db(gold)
    assert db.query("SELECT COUNT(*) FROM t WHERE x = 1") == 'columns: ["COUNT(*)"]\n[2]'
    with pytest.warns(RuntimeWarning) as warned:
        assert (db.get_reward(), db.outcome) == (None, "bad_gold")
    assert [str(w.message) for w in warned] == [f"tools.sqlite: bad_gold: {why}; the rollout gets None"]


@pytest.mark.parametrize(("row", "error", "why"), [
    # code.sql_match's column names: every query failed on an empty database, and every rollout was paid 0.0
    ({"db_sql": "CREATE TABLE t(x); INSERT INTO t VALUES (1);", "gold": "[[1]]"},
     "error: the row has no database (its database column is missing or null)",
     "the row has no database (its database column is missing or null)"),
    ({"database": ["CREATE TABLE t(x);"], "gold": "[[1]]"}, "error: the row's database is a list, not an SQL script",
     "the row's database is a list, not an SQL script"),
    ({"database": "CREATE TABLE t(x", "gold": "[[1]]"},
     "error: the database could not be built (OperationalError: incomplete input)",
     "the database could not be built (OperationalError: incomplete input)"),
], ids=["no_database_column", "not_text", "does_not_build"])
def test_a_row_whose_database_is_missing_or_does_not_build_gets_none_not_zero(row, error, why):
    db = SQLite()
    db.reset(**row)
    assert db.query("SELECT x FROM t") == error
    assert db.query("SELECT 1") == error  # not paid for a query that needs no table either
    with pytest.warns(RuntimeWarning) as warned:
        assert (db.get_reward(), db.outcome) == (None, "no_database")
    assert [str(w.message) for w in warned] == [f"tools.sqlite: no_database: {why}; the rollout gets None"]
    db.reset(database="CREATE TABLE t(x); INSERT INTO t VALUES (1);", gold="[[1]]")  # the next row is scored
    db.query("SELECT x FROM t")
    assert (db.get_reward(), db.outcome) == (1.0, "correct")
    db.reset(database="", gold="[[1]]")  # an empty script is a database without tables, not no_database
    assert db.query("SELECT 1") == 'columns: ["1"]\n[1]'
    assert (db.get_reward(), db.outcome) == (1.0, "correct")


def test_a_gold_integer_past_a_floats_range_is_a_wrong_result_not_an_exception():
    db = _db(gold="[[" + "9" * 4000 + "]]")  # OverflowError came out of get_reward into TRL's loop
    db.query("SELECT 9e999")
    assert (db.get_reward(), db.outcome) == (0.0, "wrong_result")


def test_a_gold_of_single_values_or_objects_reads_as_code_sql_matchs_rows():
    db = _db('[{"n": 2}]')
    db.query("SELECT COUNT(*) FROM t WHERE x = 1")
    assert (db.get_reward(), db.outcome) == (1.0, "correct")
    db = _db("[2]")
    db.query("SELECT COUNT(*) FROM t WHERE x = 1")
    assert (db.get_reward(), db.outcome) == (1.0, "correct")


def test_result_sets_are_multisets_with_numbers_compared_by_value():
    assert same_rows([[2.0, "b"], [1, "a"]], [[1, "a"], [2, "b"]])
    assert not same_rows([[1, "a"]], [[1, "a"], [1, "a"]])
    assert not same_rows([["1"]], [[1]])


def test_sqlite_runs_on_the_code_packages_sql_execution_and_its_docstring_holds():
    import doctest

    import grpo_rewards_tools.environments.database as database

    assert doctest.testmod(database).failed == 0
    db = _db()
    assert db.query("SELECT load_extension('/tmp/x.so')") == "error: not authorized to use function: load_extension"
    assert db.query("SELECT 2; DROP TABLE t") == "error: You can only execute one statement at a time."


def test_sqlite_without_a_sandbox_is_not_scored_and_says_why(monkeypatch):
    monkeypatch.setenv("GRPO_REWARDS_CODE_SANDBOX", "no-such-backend")
    db = _db()
    with pytest.warns(RuntimeWarning, match="tools.sqlite: the sandbox cannot run queries"):
        assert db.query("SELECT COUNT(*) FROM t WHERE x = 1").startswith("error: the SQL sandbox is not available")
    assert (db.get_reward(), db.outcome) == (None, "sandbox_error")


#: a right query for each kind of generated question
RIGHT_SQL = [
    (r"How many employees work in the (\w+) department\?", "SELECT COUNT(*) FROM employees WHERE dept = '{}'"),
    (r"Which employees earn more than (\d+)\? List their names\.", "SELECT name FROM employees WHERE salary > {}"),
    (r"What is the total salary of the (\w+) department\?", "SELECT SUM(salary) FROM employees WHERE dept = '{}'"),
    (r"In which city does (\w+) work\?", "SELECT city FROM departments WHERE name = "
                                         "(SELECT dept FROM employees WHERE name = '{}')"),
]


def test_sqlite_task_gold_is_what_a_right_query_returns_and_is_paid(env_registry):
    task = env_registry.task("tools:sqlite")
    assert task.environment == "tools.sqlite"
    rows = task.factory(24, 1)
    assert rows == make_sqlite(24, 1)
    kinds = set()
    for row in rows:
        question = row["prompt"][1]["content"]
        kind, sql = next((k, s.format(*re.fullmatch(p, question).groups()))
                         for k, (p, s) in enumerate(RIGHT_SQL) if re.fullmatch(p, question))
        kinds.add(kind)
        connection = sqlite3.connect(":memory:")
        connection.executescript(row["database"])
        assert same_rows([list(r) for r in connection.execute(row["gold_sql"])], json.loads(row["gold"]))
        db = SQLite()
        db.reset(**row)
        db.query(sql)
        assert (db.get_reward(), db.outcome) == (1.0, "correct"), (question, sql)
    assert kinds == {0, 1, 2, 3}


def test_sqlite_hack_corpus_pays_nothing(env_registry):
    report = run_hacks("tools.sqlite", registry=env_registry)
    assert report.overpaid == []
    paid = {r.hack.name: r.paid for r in report.results}
    assert paid == {"score_text_without_a_query": 0.0, "literal_score_from_the_tool": 0.0, "fake_gold_printed": 0.0,
                    "delete_then_count": 0.0, "attach_another_file": 0.0, "right_query_then_junk": 0.0,
                    "endless_recursion": 0.0, "two_statements": 0.0}


def test_sqlite_replay_in_score_pays_a_right_trajectory(env_registry):
    from grpo_rewards_tools.environments.hacks import _COLUMNS, _PROMPT, _call

    reward = grpo_rewards.load_reward_set([{"use": "tools.sqlite"}], registry=env_registry).rewards[0]
    right = [*_call("SELECT COUNT(*) FROM employees WHERE dept = 'research'", 'columns: ["COUNT(*)"]\n[2]'),
             {"role": "assistant", "content": "Two."}]
    result = reward.score(prompts=[_PROMPT], completions=[right], **{k: [v] for k, v in _COLUMNS.items()})
    assert (result.values, result.labels) == ([1.0], ["correct"])


def test_sqlite_replay_takes_argument_text_nested_too_deeply_as_a_failed_call(env_registry):
    # json.loads raised RecursionError out of the replay: the right trajectory below scored None (env_error)
    from grpo_rewards_tools.environments.hacks import _COLUMNS, _PROMPT, _call

    reward = grpo_rewards.load_reward_set([{"use": "tools.sqlite"}], registry=env_registry).rewards[0]
    deep = {"role": "assistant", "content": "", "tool_calls": [
        {"type": "function", "function": {"name": "query", "arguments": "[" * 100_000 + "]" * 100_000}}]}
    right = [deep, *_call("SELECT COUNT(*) FROM employees WHERE dept = 'research'", 'columns: ["COUNT(*)"]\n[2]'),
             {"role": "assistant", "content": "Two."}]
    result = reward.score(prompts=[_PROMPT], completions=[right], **{k: [v] for k, v in _COLUMNS.items()})
    assert (result.values, result.labels) == ([1.0], ["correct"])
    result = reward.score(prompts=[_PROMPT], completions=[[deep]], **{k: [v] for k, v in _COLUMNS.items()})
    assert (result.values, result.labels) == ([0.0], ["no_query"])


# -- Python ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def python_env():
    from grpo_rewards_code.sandbox import SandboxUnavailable, get_sandbox
    from grpo_rewards_tools.environments.python import Python

    try:
        get_sandbox()
    except SandboxUnavailable as exc:
        pytest.skip(f"this machine cannot run a sandbox: {exc}")
    return Python(time_limit=1.0)


def test_python_keeps_state_across_the_calls_of_one_rollout(python_env):
    python_env.reset()
    assert python_env.run_python("x = 6 * 7\nprint(x)") == "42\n"
    assert python_env.run_python("def f(a):\n    return a + x\nprint(f(1))") == "43\n"
    assert python_env.run_python("import sys\nprint('oops', file=sys.stderr)\n1 / 0") == (
        "oops\nerror: ZeroDivisionError: division by zero")
    assert python_env.run_python("print(f(2))") == "44\n"  # the failed cell's replay printed nothing


def test_python_cell_stopped_by_its_limit_is_not_kept(python_env):
    python_env.reset()
    python_env.run_python("y = 1")
    assert python_env.run_python("while True:\n    pass") == "error: the code ran past its time limit and was stopped"
    assert python_env.run_python("print(y)") == "1\n"



#: a cell that spends ``{seconds}`` of CPU time (the process's own clock: the same on a fast or a busy machine)
_SPEND = "import time\n_t = time.process_time()\nwhile time.process_time() - _t < {seconds}:\n    pass\n{rest}"


def test_each_call_has_its_own_time_limit_beside_the_replay_of_the_earlier_cells(python_env):
    # before: the limit covered the replay too: under a 0.5 s limit, a second 0.3 s cell was stopped (0.3 + 0.3)
    from grpo_rewards_tools.environments.python import Python

    python = Python(time_limit=0.5)
    assert python.run_python(_SPEND.format(seconds=0.3, rest="a = 1\nprint(a)")) == "1\n"
    assert python.run_python(_SPEND.format(seconds=0.3, rest="b = a + 1\nprint(b)")) == "2\n"
    assert python.run_python(_SPEND.format(seconds=1.5, rest="print('late')")) == (  # one call past its own
        "error: the code ran past its time limit and was stopped")
    assert python.run_python("print(a, b)") == "1 2\n"

def test_replayed_cells_print_nothing_even_to_the_descriptor_itself(python_env):
    # os.write(1, ...) bypassed the replay's sys.stdout: every later call's output began with it
    python_env.reset()
    assert python_env.run_python("import os\nos.write(1, b'early\\n')\nx = 3") == "early\n"
    assert python_env.run_python("print(x)") == "3\n"


def test_a_cell_that_ends_the_interpreter_is_not_kept(python_env):
    # it was kept, and its replay ended every later call before its code ran: each answered "(no output)"
    python_env.reset()
    python_env.run_python("x = 1")
    assert python_env.run_python("import os\nx = 2\nos._exit(0)") == (
        "error: the code ended the interpreter (os._exit); what it defined is not kept")
    assert python_env.run_python("print(x)") == "1\n"
    assert python_env.run_python("import sys\nx = 5\nsys.exit(0)") == "(no output)"  # SystemExit: a cell's end
    assert python_env.run_python("print(x)") == "5\n"


def test_nothing_crosses_rollouts(python_env):
    python_env.reset()
    python_env.run_python("secret = 'a'\nopen('/tmp/secret.txt', 'w').write('gold')")
    python_env.reset()
    assert python_env.run_python("import os\nprint('secret' in globals(), os.path.exists('/tmp/secret.txt'))") == (
        "False False\n")


def test_the_environment_and_the_trainer_cannot_be_reached_from_run_python(python_env):
    python_env.reset()
    probe = ("import gc, os\n"
             "print(sorted({type(o).__name__ for o in gc.get_objects()} & {'Python', 'GRPOTrainer', 'SQLite'}))\n"
             "print(os.getuid(), open('/proc/1/cmdline').read().count('pytest'))")
    assert python_env.run_python(probe) == "[]\n65534 0\n"
    assert python_env.run_python("import socket\nsocket.create_connection(('127.0.0.1', 80), timeout=1)"
                                 ).startswith("error: ")


def test_python_refuses_empty_code_and_too_many_cells(python_env):
    from grpo_rewards_tools.environments.python import Python

    env = Python(max_cells=1)
    env.reset()
    assert env.run_python("   ") == "error: give the code to run as text"
    assert env.run_python("pass") == "(no output)"
    assert env.run_python("pass") == "error: this conversation already ran 1 cells, the most allowed"


def test_environments_are_listed_without_importing_their_code():
    import sys

    for name in ("calculator", "database", "python"):
        sys.modules.pop(f"grpo_rewards_tools.environments.{name}", None)
    plugins = get_plugins(load_entry_points=False)
    plugins.add(EnvironmentsOnly(), "tools")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        info = load_registry(plugins).environment("tools.sqlite")
        assert (info.owns_reward, info.summary) == (True, "A small read-only SQLite database per row, queried with "
                                                          "SQL; owns its reward (the last result vs the gold).")
        assert list(info.params_unloaded()) == ["timeout", "max_rows", "max_chars", "max_output"]
    assert "grpo_rewards_tools.environments.database" not in sys.modules
