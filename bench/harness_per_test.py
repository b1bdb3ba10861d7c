"""bench/code.md: what one test costs in the harness's supervisor loop (CPU and copy-on-write page faults).

    python -I -S bench/harness_per_test.py [HARNESS] [TESTS]     # stdlib only, as the sandbox runs it

Loads ``HARNESS`` (default: the package's harness, its parts joined as the sandbox joins them; pass one file of
another version, for example
``git show 0c3176c:packages/rewards-code/src/grpo_rewards_code/harness.py > /tmp/old.py``, to compare)
outside bwrap, sets up a zygote's state (its preloads, streams, freeze), forks a supervisor that
compiles HumanEval/0's canonical solution (call tests) or a stdin/stdout sum (stdio tests) and runs
``TESTS`` tests through ``_run_one`` + ``_kill_others`` + the result line, three times each. Prints per
test: the supervisor's CPU and minor faults, its children's (each test's child: fork, rlimits,
seccomp filter, the program, exit), and the sum. The rlimits and filter are the real ones; only
the namespaces are missing.
"""

import gc
import os
import resource
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = os.path.join(HERE, "..", "packages", "rewards-code", "src", "grpo_rewards_code", "harness.py")
CALL_PROGRAM = '''from typing import List


def has_close_elements(numbers: List[float], threshold: float) -> bool:
    """ Check if in given list of numbers, are any two numbers closer to each other than
    given threshold.
    """
    for idx, elem in enumerate(numbers):
        for idx2, elem2 in enumerate(numbers):
            if idx != idx2:
                distance = abs(elem - elem2)
                if distance < threshold:
                    return True

    return False
'''
STDIO_PROGRAM = "a, b = map(int, input().split())\nprint(a + b)\n"


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else DEFAULT
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    if path == DEFAULT:  # the package's harness: its source files joined, as the sandbox joins them
        sys.path.insert(0, os.path.dirname(DEFAULT))
        from harness import source  # type: ignore[import-not-found]

        text = source()
    else:  # one file (an older version of the harness, from before it was split into parts)
        with open(path, encoding="utf-8") as f:
            text = f.read()
    harness: dict = {"__name__": "harness"}
    exec(compile(text, path, "exec"), harness)  # the harness under test, as the sandbox runs it
    harness["_prepare"]()
    for name in harness["PRELOAD"]:
        __import__(name)
    if "_settle" in harness:  # as the zygote does
        harness["_make_streams"]()
        harness["_settle"]()
    else:
        gc.freeze()
    limits = {"time": 2.0, "memory": 512 << 20, "output": 1 << 20, "_end": float("inf")}  # _end: as _supervise sets it
    args = harness["encode"]([[1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3])
    for kind, program, test in (("call", CALL_PROGRAM, {"kind": "call", "fn": "has_close_elements", "args": args}),
                                ("stdio", STDIO_PROGRAM, {"kind": "stdio", "input": "1 2\n"})):
        pid = os.fork()
        if pid == 0:  # the supervisor of one program
            job = {"language": "python", "program": program, "tests": [test] * n, "limits": limits}
            if not harness["_STREAMS"]:
                harness["_make_streams"]()
            harness["_compile_python"](job, limits)
            gc.freeze()
            line = harness.get("_json_line") or (lambda m: (__import__("json").dumps(m) + "\n").encode())
            for _ in range(3):
                s0, c0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                for i in range(n):
                    result = harness["_run_one"](job, i, test, limits)
                    harness["_kill_others"]()
                    line({"i": i, **result})
                wall = time.perf_counter() - start
                s1, c1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
                own = s1.ru_utime + s1.ru_stime - s0.ru_utime - s0.ru_stime
                kids = c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime
                print(f"{kind}: per test wall {wall / n * 1e6:5.0f} us; supervisor {own / n * 1e6:4.0f} us, "
                      f"{(s1.ru_minflt - s0.ru_minflt) / n:4.0f} faults; child {kids / n * 1e6:5.0f} us, "
                      f"{(c1.ru_minflt - c0.ru_minflt) / n:4.0f} faults; CPU {(own + kids) / n * 1e6:5.0f} us "
                      f"({result['status']}, load {os.getloadavg()[0]:.1f})", flush=True)
            os._exit(0)
        os.waitpid(pid, 0)


if __name__ == "__main__":
    main()
