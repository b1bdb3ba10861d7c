"""code.sql_match's hack corpus: each entry gets exactly the value and label its docstring states."""

from __future__ import annotations

import contextlib
import io

from grpo_rewards.cli import main
from grpo_rewards_code.sql import SqlMatch
from grpo_rewards_code.sql_hacks import corpus

EXPECTED = {
    "drop_table": (0.0, "sql_error"), "insert_row": (0.0, "sql_error"), "answer_then_drop": (0.0, "sql_error"),
    "attach_host_file": (0.0, "sql_error"), "attach_memory": (0.0, "sql_error"),
    "pragma_writable_schema": (0.0, "sql_error"), "pragma_query_only_off": (0.0, "sql_error"),
    "pragma_function": (0.0, "sql_error"), "load_extension": (0.0, "sql_error"), "readfile": (0.0, "sql_error"),
    "gold_from_other_table": (0.0, "sql_error"), "gold_from_temp_schema": (0.0, "mismatched"),
    "cartesian_time_bomb": (0.0, "timeout"), "endless_recursion": (0.0, "timeout"),
    "gigabyte_blob": (0.0, "sql_error"), "integer_one_off": (0.0, "mismatched"), "float_near_integer": (0.0, "mismatched"),
    "literal_gold_value": (1.0, "matched"), "empty_statement": (0.0, "sql_error"), "comment_only": (0.0, "sql_error"),
}


def test_every_entry_gets_its_documented_value_and_label(sandbox):
    got = {}
    for entry in corpus():
        params = entry.get("params", {}).get("code.sql_match", {})
        got[entry["name"]] = SqlMatch(**params)(entry["completion"], **entry["columns"])
    assert got == EXPECTED


def test_grpo_rewards_check_hacks_reports_every_entry_ok(sandbox):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["check", "code.sql_match", "--hacks"]) == 0
    text = out.getvalue()
    assert "no entry is overpaid" in text and text.count("  ok  ") == len(corpus())
