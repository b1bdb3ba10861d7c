"""bench/code.md, "Languages": programs per second per language through the warm sandbox, against the same
compiled program run directly (no sandbox): the cost of isolation.

    .venv/bin/python bench/bench_languages.py [language ...]    # all of this machine's languages by default

Per language, one after another on the same machine (a sum of two numbers read from stdin):

- ``direct``: the program compiled once outside the sandbox with the same toolchain and flags
  (:func:`grpo_rewards_code.languages.job_parts`), then run ``RUNS`` times as a plain subprocess with the
  same command line: runs per second, and the compile's wall time;
- ``sandbox, per test``: one program with ``RUNS`` + 1 tests through :class:`LocalRunner` (the warm
  sandbox: compile once, a fork per test) minus one with 1 test (the median of three runs of each), over
  ``RUNS``: the cost of one more test;
- ``sandbox, per program``: ``PROGRAMS`` programs of one test each (a fresh supervisor and a compile each):
  programs per second, what a training step pays per completion.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time

from grpo_rewards_code.formats import StdioTest
from grpo_rewards_code.languages import available, job_parts
from grpo_rewards_code.runner import LocalRunner, Program
from grpo_rewards_code.sandbox import Limits

SUM = {
    "python": "print(sum(map(int, input().split())))",
    "cpp": "#include <cstdio>\nint main() { long a, b; scanf(\"%ld %ld\", &a, &b); printf(\"%ld\\n\", a + b); }",
    "rust": "use std::io::Read;\nfn main() { let mut s = String::new(); std::io::stdin().read_to_string(&mut s).unwrap();\n"
            "  let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect(); println!(\"{}\", v[0] + v[1]); }",
    "java": "import java.util.*;\npublic class Main { public static void main(String[] a) {\n"
            "  Scanner s = new Scanner(System.in); System.out.println(s.nextLong() + s.nextLong()); } }",
    "javascript": "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\nconsole.log(a + b);",
}
RUNS, PROGRAMS = 40, 5
LIMITS = Limits(time=5.0)


def direct(language: str) -> tuple[float, float]:
    """(compile seconds, runs per second) of the program outside any sandbox, in a directory standing for /tmp."""
    with tempfile.TemporaryDirectory() as tmp:
        if language == "python":
            argv, compile_s = [sys.executable, "-I", "-S", "-c", SUM[language]], 0.0
        else:
            parts = job_parts(language, SUM[language], LIMITS.memory, LIMITS.compile_time, LIMITS.compile_memory)

            def swap(args: list[str]) -> list[str]:
                return [a.replace("/tmp", tmp) for a in args]
            with open(parts["source_path"].replace("/tmp", tmp), "w") as f:
                f.write(SUM[language])
            env = dict(parts["compile"]["env"], HOME=tmp, TMPDIR=tmp)
            start = time.perf_counter()
            subprocess.run(swap(parts["compile"]["argv"]), check=True, env=env, capture_output=True, cwd=tmp)
            compile_s = time.perf_counter() - start
            argv = swap(parts["run"]["argv"])
        start = time.perf_counter()
        for _ in range(RUNS):
            out = subprocess.run(argv, input=b"1 2\n", capture_output=True, check=True, env={"PATH": "/usr/bin:/bin"})
            assert out.stdout.strip() == b"3", out
        return compile_s, RUNS / (time.perf_counter() - start)


def sandboxed(language: str) -> tuple[float, float, float]:
    """(seconds of one 1-test program, seconds per extra test, programs per second) through the warm sandbox."""
    runner = LocalRunner()
    program = Program(SUM[language], language)
    runner.run(program, [StdioTest("1 2\n", "3")], LIMITS)  # the warm sandbox starts here

    def run(n: int) -> float:
        start = time.perf_counter()
        results = runner.run(program, [StdioTest("1 2\n", "3")] * n, LIMITS)
        assert [r.stdout.strip() for r in results] == ["3"] * n, results[:1]
        return time.perf_counter() - start

    # a compile's time varies far more than a test costs: the median of three of each, then the difference
    one = sorted(run(1) for _ in range(3))[1]
    per_test = (sorted(run(RUNS + 1) for _ in range(3))[1] - one) / RUNS
    start = time.perf_counter()
    for _ in range(PROGRAMS):
        run(1)
    return one, per_test, PROGRAMS / (time.perf_counter() - start)


def main() -> None:
    languages = sys.argv[1:] or available()
    print(f"load {os.getloadavg()[0]:.1f}; {RUNS} runs, {PROGRAMS} programs; bwrap: {shutil.which('bwrap') or 'wheel'}")
    print("| language | direct compile | direct runs/s | sandbox: one 1-test program | sandbox: per extra test |"
          " sandbox: programs/s | per-test cost of isolation |")
    print("|---|---|---|---|---|---|---|")
    for language in languages:
        compile_s, runs = direct(language)
        one, per_test, programs = sandboxed(language)
        print(f"| {language} | {compile_s:.2f} s | {runs:.1f} | {one:.2f} s | {per_test * 1000:.1f} ms | {programs:.2f} |"
              f" {per_test * runs:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
