"""Two variants of the scoring code side by side in one process, each mined case scored both ways.

Run by hand, from the repository root in the project's venv (math-verify is benchmark-only)::

    python bench/peers/paired.py                       # the noise floor: A and B are the same code
    python bench/peers/paired.py my_variant.py         # B: what my_variant.py's setup() patches in
    python bench/peers/paired.py my_variant.py --passes 5

``my_variant.py`` defines ``setup()``, which returns two functions without arguments: the first puts
variant B in place (patches a module's function, a class's method), the second puts A (the code as
it is) back. For example, to score with the ``regex`` module always doing the phrase rules::

    from grpo_rewards_math.extract.phrases import _Rule

    def setup():
        fast = _Rule._fast
        def b():
            _Rule._fast = lambda self, text, timeout: False
        def a():
            _Rule._fast = fast
        return b, a

Every case is scored once as A and once as B per pass (the order alternates), each call right after a
math-verify call on the same case and with the remembered results cleared, as ``run.py`` measures a
call. It prints the median over cases of each variant's per-case median time, and the median over
cases of the per-case difference B - A: paired, that difference moves far less with the machine's
other tenants than two separate ``run.py`` runs do (whose ratio moves ±7% from run to run).
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import statistics
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run  # noqa: E402  (bench/peers/run.py: the same calls, configuration mapping and warm-up)


def _variant(path: str | None) -> tuple[Any, Any]:
    if path is None:
        return (lambda: None), (lambda: None)
    spec = importlib.util.spec_from_file_location("paired_variant", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.setup()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("variant", nargs="?", help="a Python file whose setup() returns (put_b, put_a)")
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--cases", type=Path, default=HERE / "cases.jsonl")
    args = parser.parse_args(argv)

    import grpo_rewards_math
    from grpo_rewards_math import latex_lexer, parse
    from grpo_rewards_math.correctness import clear_cache

    rows = [json.loads(line) for line in args.cases.read_text(encoding="utf-8").splitlines() if line.strip()]
    accepted = set(inspect.signature(grpo_rewards_math.Accuracy.__init__).parameters)
    put_b, put_a = _variant(args.variant)
    run.ours(r"\boxed{x^2-1}", "(x-1)(x+1)", {})  # imports and the worker pool, as run.py
    run.theirs("$x^2-1$", "$(x-1)(x+1)$", {}, "", 3)
    times: dict[str, list[list[float]]] = {"A": [[] for _ in rows], "B": [[] for _ in rows]}
    try:
        for p in range(args.passes):
            for i, row in enumerate(rows):
                params, _ = run.our_params(row["config"], accepted)
                for name in ("A", "B") if (i + p) % 2 == 0 else ("B", "A"):
                    (put_a if name == "A" else put_b)()
                    clear_cache()
                    parse.clear_cache()
                    latex_lexer.normalize.cache_clear()
                    run.theirs(row["pred"], row["gold"], row["config"], row["project"], 3)
                    times[name][i].append(run.ours(row["pred"], row["gold"], params)[2])
    finally:
        put_a()
    a = [statistics.median(t) for t in times["A"]]
    b = [statistics.median(t) for t in times["B"]]
    print(f"{len(rows)} cases, {args.passes} passes: median A {statistics.median(a) * 1e6:.1f} µs, "
          f"B {statistics.median(b) * 1e6:.1f} µs; median per-case B - A "
          f"{statistics.median(y - x for x, y in zip(a, b)) * 1e6:+.2f} µs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
