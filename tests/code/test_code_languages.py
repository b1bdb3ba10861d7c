"""Java, JavaScript (Node.js) and Rust run as Python and C++ do (issue 45): compiled once per program in the
sandbox, then a test at a time, with the same labels and exact values. Each case is one small program; a
language whose toolchain this machine lacks is skipped, saying what to install."""

from __future__ import annotations

import pytest

from grpo_rewards_code import TestsPassed
from grpo_rewards_code.languages import available, java_class, missing

TWO = {"tests": [{"input": "1 2\n", "output": "3\n"}, {"input": "20 22\n", "output": "42\n"}]}
ONE = {"tests": [{"input": "1 2\n", "output": "3\n"}]}

JAVA = {
    "passed": "import java.util.*;\npublic class Solution {\n  public static void main(String[] a) {\n"
              "    Scanner s = new Scanner(System.in);\n    System.out.println(s.nextLong() + s.nextLong());\n  }\n}",
    "failed": "public class Main { public static void main(String[] a) { System.out.println(3); } }",
    "compile_error": "public class Main { public static void main(String[] a) { int x = \"no\"; } }",
    "runtime_error": "public class Main { public static void main(String[] a) { int[] x = new int[1]; x[2] = 1; } }",
    "timeout": "public class Main { public static void main(String[] a) { long i = 0; while (true) { i++; } } }",
    "memory": "import java.util.*;\npublic class Main { public static void main(String[] a) {\n"
              "  List<long[]> keep = new ArrayList<>();\n  while (true) { keep.add(new long[1 << 20]); } } }",
}
JAVASCRIPT = {
    "passed": "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\n"
              "console.log(a + b);",
    "failed": "console.log(3);",
    "compile_error": "console.log(3;",
    "runtime_error": "null.x;",
    "timeout": "let i = 0;\nwhile (true) { i++; }",
    "memory": "const keep = [];\nwhile (true) { keep.push(new Array(1 << 20).fill(1.5)); }",
}
RUST = {
    "passed": "use std::io::Read;\nfn main() {\n    let mut s = String::new();\n"
              "    std::io::stdin().read_to_string(&mut s).unwrap();\n"
              "    let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();\n"
              "    println!(\"{}\", v[0] + v[1]);\n}",
    "failed": "fn main() { println!(\"3\"); }",
    "compile_error": "fn main() { let x: i32 = \"no\"; }",
    "runtime_error": "fn main() { let v: Vec<i32> = Vec::new(); let i = std::env::args().count() + 2; println!(\"{}\", v[i]); }",
    "timeout": "fn main() { let mut i: u64 = 0; loop { i = i.wrapping_add(1); std::hint::black_box(i); } }",
    "memory": "fn main() { let mut keep = Vec::new(); loop { keep.push(vec![1u8; 1 << 24]); } }",
}
PROGRAMS = {"java": JAVA, "javascript": JAVASCRIPT, "rust": RUST}
#: the value and label of each program on its row: two tests for passed and failed, one test for the others
EXPECTED = {"passed": (1.0, "passed"), "failed": (0.5, "failed"), "compile_error": (0.0, "compile_error"),
            "runtime_error": (0.0, "runtime_error"), "timeout": (0.0, "timeout"), "memory": (0.0, "memory")}


def _needs(language: str) -> None:
    if (problem := missing(language)) is not None:
        pytest.skip(f"{language} cannot run here: {problem}")


#: javac takes seconds per program: the Java cases are in the slow lane (python -m pytest -m slow runs them)
LANGUAGE_PARAMS = [pytest.param(lang, marks=pytest.mark.slow) if lang == "java" else lang for lang in PROGRAMS]


@pytest.mark.parametrize("outcome", list(EXPECTED))
@pytest.mark.parametrize("language", LANGUAGE_PARAMS)
def test_each_language_gives_each_label_with_its_exact_value(sandbox, language, outcome):
    _needs(language)
    row = dict(TWO if outcome in ("passed", "failed") else ONE, language=language)
    # a 1 s CPU limit for the timeout (the JVM's start-up fits it) and 64 MB for the memory hog
    scorer = TestsPassed(time_limit=1.0 if outcome == "timeout" else 5.0, memory_limit_mb=64)
    completion = f"My solution:\n```{language}\n{PROGRAMS[language][outcome]}\n```\n"
    assert scorer(completion, **row) == EXPECTED[outcome]


@pytest.mark.parametrize("language", LANGUAGE_PARAMS)
def test_the_row_decides_and_another_languages_block_is_wrong_language(sandbox, language):
    _needs(language)
    py = "```python\nprint(sum(map(int, input().split())))\n```"
    assert TestsPassed()(py, **TWO, language=language) == (0.0, "wrong_language")
    code = PROGRAMS[language]["passed"]
    assert TestsPassed()(f"```{language}\n{code}\n```", **TWO) == (0.0, "wrong_language")  # a python row
    assert TestsPassed(language=language)(f"```\n{code}\n```", **TWO) == (1.0, "passed")  # the parameter pins


@pytest.mark.slow
def test_a_java_program_runs_as_its_public_class_whatever_its_name(sandbox):
    _needs("java")
    plain = "class Main { public static void main(String[] a) { System.out.println(3); } }"
    helper = ("import java.io.*;\nclass Helper { static int three() { return 3; } }\n"
              "public class Answer { public static void main(String[] a) { System.out.println(Helper.three()); } }")
    assert TestsPassed()(f"```java\n{plain}\n```", **ONE, language="java") == (1.0, "passed")
    assert TestsPassed()(f"```java\n{helper}\n```", **ONE, language="java") == (1.0, "passed")
    packaged = "package contest.round1;\n" + plain.replace("class Main", "public class Solve")
    assert TestsPassed()(f"```java\n{packaged}\n```", **ONE, language="java") == (1.0, "passed")


@pytest.mark.parametrize(("source", "name"), [
    ("public class Solution { }", "Solution"),
    ("import java.util.*;\n// public class Comment {}\nfinal public class Real { }", "Real"),
    ("class A { }\nclass B { public static void main(String[] a) { } }", "B"),
    ("class A { }", "Main"),
    ("String s = \"public class Quoted {}\"; class Q { static void main(String[] x) {} }", "Q"),
])
def test_the_java_class_is_found_by_name(source, name):
    assert java_class(source) == name


@pytest.mark.slow
def test_the_runtimes_memory_is_bounded_by_their_heap_flag_and_rlimit_data(sandbox):
    """64 MB of Java heap or V8 old space: a program that holds 32 MB passes, one that holds 512 MB is memory (the
    JVM's heap flag refuses it; V8 keeps a typed array outside its heap, and RLIMIT_DATA, 64 MB plus the runtime's
    allowance of 256 or 320 MB, refuses it)."""
    langs = [lang for lang in ("java", "javascript") if missing(lang) is None]
    if not langs:
        pytest.skip("neither java nor node here")
    hold = {"java": "public class Main { public static void main(String[] a) { long[] x = new long[{n} << 17];"
                    " for (int i = 0; i < x.length; i += 512) x[i] = i; System.out.println(3); } }",
            "javascript": "const x = new Float64Array({n} << 17).fill(1); console.log(3);"}
    for language in langs:
        scorer = TestsPassed(memory_limit_mb=64)
        small, big = (f"```{language}\n{hold[language].replace('{n}', str(n))}\n```" for n in (32, 512))
        assert scorer(small, **ONE, language=language) == (1.0, "passed"), language
        assert scorer(big, **ONE, language=language) == (0.0, "memory"), language


def test_show_lists_the_languages_this_machine_runs(sandbox):
    import contextlib
    import io

    from grpo_rewards.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["show", "code.tests_passed"]) == 0
    assert "; languages: " + ", ".join(available()) in out.getvalue()
    assert available()[:2] == ["python", "cpp"]
