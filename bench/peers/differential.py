"""What the math package reads and decides, case by case, to compare two versions of its code.

Run by hand from the repository root in the project's venv, once per version, then compare::

    python bench/peers/differential.py --out /tmp/after.jsonl
    git archive BASE packages/core/src packages/rewards-math/src | tar -x -C /tmp/base_src
    PYTHONPATH=/tmp/base_src/packages/core/src:/tmp/base_src/packages/rewards-math/src \\
        python bench/peers/differential.py --out /tmp/before.jsonl
    python bench/peers/differential.py --compare /tmp/before.jsonl /tmp/after.jsonl

The corpus (about 31,000 (completion, gold) pairs, the same on every run): the mined cases of
``cases.jsonl``, the fuzz cases of ``fuzz.py`` for three seeds, every row of
``tests/math/equivalence_cases.tsv`` (bare and in a boxed sentence), and pairs of random strings
of LaTeX fragments (seeded). For each pair it records the extracted answer (with and without the
parser's ``accept``), the gold, their tokens, their light parse and their sympy parse (as a worker runs it, with no CPU budget), and the
in-process decision of ``math.accuracy`` (``quick``: value and label, or None when a worker would
decide). Two versions that agree on every record read and decide every case alike.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

_FRAGMENTS = ["1", "2", "12", "0.5", "3.14", "-", "+", "x", "y", "^", "{", "}", "(", ")", "[", "]", "\\frac",
              "\\sqrt", "\\pi", ",", " ", "=", "<", "\\le", "\\infty", "\\cup", "%", "^\\circ", "\\text{ cm}",
              "\\cdot", "*", "/", "!", "\\{", "\\}", "a", "b", "e", "i", "\\log", "\\sin", "|", "1,000",
              "\\boxed{", "$", "and", "or", "\\left(", "\\right)", "\\dfrac", "10^{3}", "\\pm", ";", ":",
              "\\begin{pmatrix}", "&", "\\\\", "\\end{pmatrix}", "\\approx", "\\mathrm{m}", "km/h", "°", "²",
              "−", "\\,", "."]


def corpus(random_pairs: int = 6000, seed: int = 7) -> list[tuple[str, str]]:
    """The (completion, gold) pairs, in a fixed order."""
    import fuzz

    pairs: list[tuple[str, str]] = []
    for line in (HERE / "cases.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            pairs.append((row["pred"], row["gold"] if isinstance(row["gold"], str) else str(row["gold"])))
    for fuzz_seed in (0, 5, 41):
        pairs.extend((case["pred"], case["gold"]) for case in fuzz.generate(4, fuzz_seed))
    for line in (ROOT / "tests" / "math" / "equivalence_cases.tsv").read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if line.startswith("#") or len(parts) < 3:
            continue
        pairs.append((parts[2], parts[1]))
        pairs.append((f"The answer is $\\boxed{{{parts[2]}}}$.", parts[1]))
    rng = random.Random(seed)
    for _ in range(random_pairs):
        pred = "".join(rng.choice(_FRAGMENTS) for _ in range(rng.randint(1, 12)))
        gold = "".join(rng.choice(_FRAGMENTS) for _ in range(rng.randint(1, 12)))
        pairs.append((pred, gold))
        pairs.append((rng.choice(["The answer is ", "So ", "Thus $", ""]) + pred + rng.choice([".", "$.", "", " cm"]),
                      gold))
    return pairs


def _answer(a: Any) -> Any:
    if a is None:
        return None
    return [a.kind, repr(a.value), a.approx, a.percent, a.degree, a.huge, a.units, _answer(a.alt), a.text]


def _safe(f: Any, *args: Any) -> Any:
    try:
        return f(*args)
    except Exception as exc:  # a raise is a result too: the same error on both sides
        return f"raised {type(exc).__name__}: {str(exc)[:80]}"


def records(pairs: list[tuple[str, str]]) -> list[dict[str, Any]]:
    import grpo_rewards_math
    from grpo_rewards_math import rewards
    from grpo_rewards_math.budget import unbounded
    from grpo_rewards_math.extract import extract_answer, extract_gold
    from grpo_rewards_math.latex_lexer import normalize, tokenize
    from grpo_rewards_math.parse import parse_answer, read_answer

    accuracy = grpo_rewards_math.Accuracy()
    out = []
    for pred, gold in pairs:
        rec: dict[str, Any] = {
            "case": [pred, gold],
            "answer": _safe(extract_answer, pred), "answer_accepted": _safe(accuracy.extract, pred),
            "gold_extracted": _safe(extract_gold, gold), "gold": _safe(rewards._gold_of, gold),
            "tokens_raw": _safe(lambda s: [list(t) for t in tokenize(s)], pred),
        }
        for key in ("answer_accepted", "gold"):
            text = rec[key]
            if isinstance(text, str) and not text.startswith("raised "):
                rec[f"{key}_tokens"] = _safe(lambda s: [list(t) for t in tokenize(normalize(s))], text)
                rec[f"{key}_light"] = _safe(lambda s: _answer(read_answer(s)), text)
                with unbounded():  # the worker's parse, without the in-process CPU budget (no load-dependent result)
                    rec[f"{key}_sympy"] = _safe(lambda s: repr(_answer(parse_answer(s))), text)
        rec["quick"] = _safe(lambda p, g: accuracy.quick(p, solution=g, prompt=""), pred, gold)
        out.append(rec)
    return out


def compare(before: Path, after: Path, show: int = 8) -> int:
    a = [json.loads(line) for line in before.read_text(encoding="utf-8").splitlines()]
    b = [json.loads(line) for line in after.read_text(encoding="utf-8").splitlines()]
    if len(a) != len(b):
        print(f"different corpora: {len(a)} and {len(b)} records")
        return 2
    changed: Counter[str] = Counter()
    shown = 0
    for i, (x, y) in enumerate(zip(a, b)):
        for key in sorted(set(x) | set(y)):
            if x.get(key) != y.get(key):
                changed[key] += 1
                if shown < show:
                    shown += 1
                    print(f"case {i} {x.get('case')!r}: {key}\n  before {x.get(key)!r}\n  after  {y.get(key)!r}")
    print(f"{len(a)} cases: " + ("identical" if not changed else
                                 "records that differ: " + ", ".join(f"{k} {n}" for k, n in changed.items())))
    return 1 if changed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, help="write one JSON record per case here")
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    if not args.out:
        parser.error("--out or --compare")
    with args.out.open("w", encoding="utf-8") as f:
        for rec in records(corpus()):
            f.write(json.dumps(rec, default=repr) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
