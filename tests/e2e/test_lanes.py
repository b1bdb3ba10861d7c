"""The fast lane's measured-slow list: how a JUnit report becomes node ids, and that every listed id exists."""

from __future__ import annotations

import ast
from pathlib import Path

from lanes import TESTS, measured_slow, slow_in_junit

REPORT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="0" failures="0" skipped="1" tests="5" time="3.1">
<testcase classname="tests.pkg.test_mod" name="test_fast" time="0.010" />
<testcase classname="tests.pkg.test_mod" name="test_sandbox[gym.accuracy]" time="0.731" />
<testcase classname="tests.pkg.test_mod" name="test_exactly_at_the_line" time="0.500" />
<testcase classname="tests.pkg.test_mod.TestGroup" name="test_in_a_class" time="1.200" />
<testcase classname="tests.pkg.test_mod" name="test_skipped_late" time="0.900"><skipped message="no" /></testcase>
</testsuite></testsuites>
"""


def test_a_junit_report_gives_the_node_ids_of_the_tests_at_or_over_the_line(tmp_path):
    (tmp_path / "tests" / "pkg").mkdir(parents=True)
    (tmp_path / "tests" / "pkg" / "test_mod.py").write_text("")
    report = tmp_path / "junit.xml"
    report.write_text(REPORT)
    assert slow_in_junit([report], 0.5, root=tmp_path) == {
        "tests/pkg/test_mod.py::test_sandbox[gym.accuracy]",
        "tests/pkg/test_mod.py::test_exactly_at_the_line",
        "tests/pkg/test_mod.py::TestGroup::test_in_a_class",
    }
    assert slow_in_junit([report], 1.0, root=tmp_path) == {"tests/pkg/test_mod.py::TestGroup::test_in_a_class"}


def test_every_measured_slow_id_names_a_test_function_that_exists():
    ids = measured_slow()
    assert len(ids) > 100
    functions: dict[str, set[str]] = {}
    for node_id in ids:
        path, *_, name = node_id.split("::")
        if path not in functions:
            module = TESTS.parent / path
            assert module.is_file(), node_id
            functions[path] = {n.name for n in ast.walk(ast.parse(module.read_text("utf-8")))
                               if isinstance(n, ast.FunctionDef)}
        assert name.split("[")[0] in functions[path], f"{node_id}: no such test (renamed? run python tests/lanes.py)"


def test_the_list_is_sorted_and_has_no_duplicate():
    lines = [line for line in Path(TESTS / "measured_slow.txt").read_text("utf-8").splitlines()
             if line and not line.startswith("#")]
    assert lines == sorted(set(lines))
